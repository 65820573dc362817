/*
 * reexec.c - a program that executes itself again, as a launcher that
 * re-execs with a changed environment does: same pid, same path, new image.
 *
 * Usage: reexec N
 *   Calls the functions of image N (image_N_a, image_N_b), then, while N > 0,
 *   executes /proc/self/exe with N - 1; image 0 returns from main.
 *
 * Prints "image<N> <address>" for the functions each image calls, once, from
 * the first image, so a test can find each image's records in its trace.
 */
#include "fixture_support.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned sink;

__attribute__((noinline)) static void image2_a(void) { sink += 1; }
__attribute__((noinline)) static void image2_b(void) { sink += 2; }
__attribute__((noinline)) static void image1_a(void) { sink += 3; }
__attribute__((noinline)) static void image1_b(void) { sink += 4; }
__attribute__((noinline)) static void image0_a(void) { sink += 5; }
__attribute__((noinline)) static void image0_b(void) { sink += 6; }

static void (*const images[3][2])(void) = {
    {image0_a, image0_b}, {image1_a, image1_b}, {image2_a, image2_b}};

int main(int argc, char **argv) {
  int image = argc > 1 ? atoi(argv[1]) : 0;
  if (image < 0 || image > 2) {
    fprintf(stderr, "usage: reexec 0|1|2\n");
    return 64;
  }
  if (argc > 2 && strcmp(argv[2], "print") == 0) {
    for (int i = 0; i <= image; i++) {
      char label[16];
      snprintf(label, sizeof label, "image%d", i);
      fixture_print(label, (const void *)images[i][0]);
      fixture_print(label, (const void *)images[i][1]);
    }
    fflush(stdout);
  }
  images[image][0]();
  images[image][1]();
  if (image > 0) {
    char next[16];
    snprintf(next, sizeof next, "%d", image - 1);
    char *arguments[] = {argv[0], next, NULL};
    execv("/proc/self/exe", arguments);
    perror("reexec: execv");
    return 70;
  }
  return 0;
}
