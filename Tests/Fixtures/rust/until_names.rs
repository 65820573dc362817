// The names a Rust launch runs in both manglings' spellings: closures, a closure in a
// closure, a generic instance (drop_in_place of Opts), and a C name. The tests build it with
// rustc's default (legacy) mangling and with -C symbol-mangling-version=v0.
pub struct Opts {
    pub name: String,
    pub count: usize,
}

pub mod walk {
    #[inline(never)]
    pub fn spawn_senders(count: usize) -> usize {
        let outer = |n: usize| {
            let inner = |m: usize| m * 2 + 1;
            (0..n).map(inner).sum::<usize>()
        };
        outer(count)
    }
}

#[inline(never)]
#[no_mangle]
#[allow(non_snake_case)]
pub extern "C" fn ZSTD_compressStream2(level: i32) -> i32 {
    level * 3
}

#[inline(never)]
fn make_opts(count: usize) -> Opts {
    Opts { name: format!("opts{}", count), count }
}

fn main() {
    let count = std::env::args().count();
    let opts = make_opts(count);
    let total = walk::spawn_senders(opts.count) + ZSTD_compressStream2(opts.name.len() as i32) as usize;
    println!("{}", total);
}
