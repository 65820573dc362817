#include <stdio.h>

int parse_config(int), open_window(int), render_frame(int), cold_path(int);

int main(int argc, char **argv) {
  (void)argv;
  int value = render_frame(open_window(parse_config(argc)));
  if (argc > 5) value += cold_path(value);
  printf("%d\n", value);
  return 0;
}
