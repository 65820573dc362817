// Three launch functions in source order; the tests order them otherwise.
#[inline(never)]
fn app_first(x: u64) -> u64 {
    dep::dep_setup(x) + 1
}

#[inline(never)]
fn app_second(x: u64) -> u64 {
    x.wrapping_mul(3)
}

#[inline(never)]
fn app_third(x: u64) -> u64 {
    x + 7
}

fn main() {
    let n = std::env::args().count() as u64;
    println!("{}", app_third(app_second(app_first(n))));
}
