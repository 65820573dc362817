/*
 * tiny.c - an instrumented program that does almost nothing, to measure
 * what linking the runtime costs a process by itself: loading it, starting
 * it, and writing the trace at exit.
 */
__attribute__((noinline)) static int answer(int x) { return x * 6; }

__attribute__((noinline)) static int check(int x) { return answer(x) == 42 ? 0 : 1; }

int main(void) { return check(7); }
