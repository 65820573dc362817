// The dependency's launch function, ordered with the binary's own.
#[inline(never)]
pub fn dep_setup(x: u64) -> u64 {
    x.wrapping_mul(31).rotate_left(7)
}
