/* The entry point of the executable fixtures. */

int located_function(int x);
int second_function(int x);
int other_entry(int x);
int aliased_alias(int x);

int main(int argc, char **argv) {
  (void)argv;
  return (second_function(argc) + other_entry(argc) + aliased_alias(argc)) & 1;
}
