/*
 * launchdata.c - a program whose launch reads a scattered few of many named constant
 * tables (each 1 KiB, so that a page holds four), a dense switch (a jump table without a
 * symbol) and string literals: the data `record --data` records and `generate` places.
 * Tables 0, 7, 14, ... (every seventh) are read at launch, in descending order; the rest
 * never are. Built with -fdata-sections, each table is a section of its own.
 */
#include <stdio.h>
#include <string.h>

const int launch_table_0[256] = {0, 1, 2, 7};
const int launch_table_1[256] = {1, 4, 7, 7};
const int launch_table_2[256] = {2, 7, 12, 7};
const int launch_table_3[256] = {3, 10, 17, 7};
const int launch_table_4[256] = {4, 13, 22, 7};
const int launch_table_5[256] = {5, 16, 27, 7};
const int launch_table_6[256] = {6, 19, 32, 7};
const int launch_table_7[256] = {7, 22, 37, 7};
const int launch_table_8[256] = {8, 25, 42, 7};
const int launch_table_9[256] = {9, 28, 47, 7};
const int launch_table_10[256] = {10, 31, 52, 7};
const int launch_table_11[256] = {11, 34, 57, 7};
const int launch_table_12[256] = {12, 37, 62, 7};
const int launch_table_13[256] = {13, 40, 67, 7};
const int launch_table_14[256] = {14, 43, 72, 7};
const int launch_table_15[256] = {15, 46, 77, 7};
const int launch_table_16[256] = {16, 49, 82, 7};
const int launch_table_17[256] = {17, 52, 87, 7};
const int launch_table_18[256] = {18, 55, 92, 7};
const int launch_table_19[256] = {19, 58, 97, 7};
const int launch_table_20[256] = {20, 61, 102, 7};
const int launch_table_21[256] = {21, 64, 107, 7};
const int launch_table_22[256] = {22, 67, 112, 7};
const int launch_table_23[256] = {23, 70, 117, 7};
const int launch_table_24[256] = {24, 73, 122, 7};
const int launch_table_25[256] = {25, 76, 127, 7};
const int launch_table_26[256] = {26, 79, 132, 7};
const int launch_table_27[256] = {27, 82, 137, 7};
const int launch_table_28[256] = {28, 85, 142, 7};
const int launch_table_29[256] = {29, 88, 147, 7};
const int launch_table_30[256] = {30, 91, 152, 7};
const int launch_table_31[256] = {31, 94, 157, 7};
const int launch_table_32[256] = {32, 97, 162, 7};
const int launch_table_33[256] = {33, 100, 167, 7};
const int launch_table_34[256] = {34, 103, 172, 7};
const int launch_table_35[256] = {35, 106, 177, 7};
const int launch_table_36[256] = {36, 109, 182, 7};
const int launch_table_37[256] = {37, 112, 187, 7};
const int launch_table_38[256] = {38, 115, 192, 7};
const int launch_table_39[256] = {39, 118, 197, 7};
const int launch_table_40[256] = {40, 121, 202, 7};
const int launch_table_41[256] = {41, 124, 207, 7};
const int launch_table_42[256] = {42, 127, 212, 7};
const int launch_table_43[256] = {43, 130, 217, 7};
const int launch_table_44[256] = {44, 133, 222, 7};
const int launch_table_45[256] = {45, 136, 227, 7};
const int launch_table_46[256] = {46, 139, 232, 7};
const int launch_table_47[256] = {47, 142, 237, 7};
const int launch_table_48[256] = {48, 145, 242, 7};
const int launch_table_49[256] = {49, 148, 247, 7};
const int launch_table_50[256] = {50, 151, 252, 7};
const int launch_table_51[256] = {51, 154, 257, 7};
const int launch_table_52[256] = {52, 157, 262, 7};
const int launch_table_53[256] = {53, 160, 267, 7};
const int launch_table_54[256] = {54, 163, 272, 7};
const int launch_table_55[256] = {55, 166, 277, 7};
const int launch_table_56[256] = {56, 169, 282, 7};
const int launch_table_57[256] = {57, 172, 287, 7};
const int launch_table_58[256] = {58, 175, 292, 7};
const int launch_table_59[256] = {59, 178, 297, 7};
const int launch_table_60[256] = {60, 181, 302, 7};
const int launch_table_61[256] = {61, 184, 307, 7};
const int launch_table_62[256] = {62, 187, 312, 7};
const int launch_table_63[256] = {63, 190, 317, 7};
const int launch_table_64[256] = {64, 193, 322, 7};
const int launch_table_65[256] = {65, 196, 327, 7};
const int launch_table_66[256] = {66, 199, 332, 7};
const int launch_table_67[256] = {67, 202, 337, 7};
const int launch_table_68[256] = {68, 205, 342, 7};
const int launch_table_69[256] = {69, 208, 347, 7};
const int launch_table_70[256] = {70, 211, 352, 7};
const int launch_table_71[256] = {71, 214, 357, 7};
const int launch_table_72[256] = {72, 217, 362, 7};
const int launch_table_73[256] = {73, 220, 367, 7};
const int launch_table_74[256] = {74, 223, 372, 7};
const int launch_table_75[256] = {75, 226, 377, 7};
const int launch_table_76[256] = {76, 229, 382, 7};
const int launch_table_77[256] = {77, 232, 387, 7};
const int launch_table_78[256] = {78, 235, 392, 7};
const int launch_table_79[256] = {79, 238, 397, 7};
const int launch_table_80[256] = {80, 241, 402, 7};
const int launch_table_81[256] = {81, 244, 407, 7};
const int launch_table_82[256] = {82, 247, 412, 7};
const int launch_table_83[256] = {83, 250, 417, 7};
const int launch_table_84[256] = {84, 253, 422, 7};
const int launch_table_85[256] = {85, 256, 427, 7};
const int launch_table_86[256] = {86, 259, 432, 7};
const int launch_table_87[256] = {87, 262, 437, 7};
const int launch_table_88[256] = {88, 265, 442, 7};
const int launch_table_89[256] = {89, 268, 447, 7};
const int launch_table_90[256] = {90, 271, 452, 7};
const int launch_table_91[256] = {91, 274, 457, 7};
const int launch_table_92[256] = {92, 277, 462, 7};
const int launch_table_93[256] = {93, 280, 467, 7};
const int launch_table_94[256] = {94, 283, 472, 7};
const int launch_table_95[256] = {95, 286, 477, 7};

/* Pointers to the tables: relocated read-only data (.data.rel.ro in a PIE). */
const int *const launch_tables[96] = {
    launch_table_0,
    launch_table_1,
    launch_table_2,
    launch_table_3,
    launch_table_4,
    launch_table_5,
    launch_table_6,
    launch_table_7,
    launch_table_8,
    launch_table_9,
    launch_table_10,
    launch_table_11,
    launch_table_12,
    launch_table_13,
    launch_table_14,
    launch_table_15,
    launch_table_16,
    launch_table_17,
    launch_table_18,
    launch_table_19,
    launch_table_20,
    launch_table_21,
    launch_table_22,
    launch_table_23,
    launch_table_24,
    launch_table_25,
    launch_table_26,
    launch_table_27,
    launch_table_28,
    launch_table_29,
    launch_table_30,
    launch_table_31,
    launch_table_32,
    launch_table_33,
    launch_table_34,
    launch_table_35,
    launch_table_36,
    launch_table_37,
    launch_table_38,
    launch_table_39,
    launch_table_40,
    launch_table_41,
    launch_table_42,
    launch_table_43,
    launch_table_44,
    launch_table_45,
    launch_table_46,
    launch_table_47,
    launch_table_48,
    launch_table_49,
    launch_table_50,
    launch_table_51,
    launch_table_52,
    launch_table_53,
    launch_table_54,
    launch_table_55,
    launch_table_56,
    launch_table_57,
    launch_table_58,
    launch_table_59,
    launch_table_60,
    launch_table_61,
    launch_table_62,
    launch_table_63,
    launch_table_64,
    launch_table_65,
    launch_table_66,
    launch_table_67,
    launch_table_68,
    launch_table_69,
    launch_table_70,
    launch_table_71,
    launch_table_72,
    launch_table_73,
    launch_table_74,
    launch_table_75,
    launch_table_76,
    launch_table_77,
    launch_table_78,
    launch_table_79,
    launch_table_80,
    launch_table_81,
    launch_table_82,
    launch_table_83,
    launch_table_84,
    launch_table_85,
    launch_table_86,
    launch_table_87,
    launch_table_88,
    launch_table_89,
    launch_table_90,
    launch_table_91,
    launch_table_92,
    launch_table_93,
    launch_table_94,
    launch_table_95
};

/* A dense switch: clang puts its jump table in .rodata.classify, a section without a symbol. */
__attribute__((noinline)) static int classify(int value) {
  switch (value & 15) {
  case 0: return value * 3;
  case 1: return value ^ 0x55;
  case 2: return value + 17;
  case 3: return value - 9;
  case 4: return value << 2;
  case 5: return value >> 1;
  case 6: return value * value;
  case 7: return ~value;
  case 8: return value | 0x100;
  case 9: return value & 0xff;
  case 10: return value * 11;
  case 11: return value + 1001;
  case 12: return value - 777;
  case 13: return value ^ 0x1234;
  case 14: return value * 5 + 3;
  default: return value / 3;
  }
}

int main(int argc, char **argv) {
  (void)argv;
  long sum = 0;
  /* argc - 1 is 0: the compiler cannot fold the reads. */
  for (int table = 96 - 1; table >= 0; table--) {
    if (table % 7 == 0) {
      sum += launch_tables[table][argc - 1] + classify(table + argc);
    }
  }
  printf("launch data: %ld\n", sum);
  puts(argc > 1 ? "with arguments" : "without arguments");
  return 0;
}
