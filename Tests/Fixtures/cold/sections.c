/* A launch that reads known pages of its own file, section by section: 4 pages of a
 * 64-page table in .rodata, 4 pages of a 64-page array in .data (written, so each is read
 * before it is copied), and, through the loader, every relocation of 4,096 pointers
 * (.rela.dyn, filling .data.rel.ro). The touched pages lie 16 pages apart and 8 pages
 * from either end of their array, so that each costs one read with up to 32 KiB of
 * read-ahead around it. */
#include <stdio.h>

#define PAGE 4096
#define PAGES 64
/* Pages between two touched pages: -DSTRIDE=8 touches 7 pages of each array instead of 4. */
#ifndef STRIDE
#define STRIDE 16
#endif

/* Every byte nonzero, so that the table is file bytes and not zero fill. */
#define ROW(i) {[0 ... PAGE - 1] = (unsigned char)(i + 1)}
#define ROW4(i) ROW(i), ROW(i + 1), ROW(i + 2), ROW(i + 3)
#define ROW16(i) ROW4(i), ROW4(i + 4), ROW4(i + 8), ROW4(i + 12)
__attribute__((aligned(PAGE))) const unsigned char table[PAGES][PAGE] = {
    ROW16(0), ROW16(16), ROW16(32), ROW16(48)};
__attribute__((aligned(PAGE))) unsigned char data[PAGES][PAGE] = {
    ROW16(0), ROW16(16), ROW16(32), ROW16(48)};

#define P1(i) &table[(i) % PAGES][(i) % PAGE]
#define P4(i) P1(i), P1(i + 1), P1(i + 2), P1(i + 3)
#define P16(i) P4(i), P4(i + 4), P4(i + 8), P4(i + 12)
#define P64(i) P16(i), P16(i + 16), P16(i + 32), P16(i + 48)
#define P256(i) P64(i), P64(i + 64), P64(i + 128), P64(i + 192)
#define P1024(i) P256(i), P256(i + 256), P256(i + 512), P256(i + 768)
const unsigned char *const pointers[4096] = {P1024(0), P1024(1024), P1024(2048), P1024(3072)};

int main(void) {
  unsigned sum = 0;
  for (int page = 8; page < PAGES; page += STRIDE) {
    sum += *(volatile const unsigned char *)&table[page][100];
    ((volatile unsigned char *)data[page])[100] += 1;
  }
  sum += *pointers[4095];
  printf("%u\n", sum);
  return 0;
}
