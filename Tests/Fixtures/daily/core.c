/* Launch functions with never-called functions of a page each between them: in link
 * order every launch function sits on a page of its own. */
#define FILLER(n) \
  __attribute__((noinline)) int filler_##n(int x) { __asm__ volatile(".skip 4096, 0x90"); return x + n; }

__attribute__((noinline)) int parse_config(int x) { return x * 3 + 1; }
FILLER(1)
FILLER(2)
__attribute__((noinline)) int open_window(int x) { return x + 7; }
FILLER(3)
FILLER(4)
__attribute__((noinline)) int render_frame(int x) { return x * 2; }
FILLER(5)
FILLER(6)
__attribute__((noinline)) int cold_path(int x) { return x - 1; }
