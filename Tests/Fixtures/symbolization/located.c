/* Compiled into every symbolization fixture. The tests find the line of
   `located_function` by searching this file for its name. */

__attribute__((noinline)) static int helper(int x) {
  return x + 7;
}

int located_function(int x) {
  int doubled = x * 2;
  return helper(doubled) - 1;
}

__attribute__((noinline)) int second_function(int x) {
  int total = 0;
  for (int i = 0; i < x; i++) total += i * located_function(i);
  return total;
}
