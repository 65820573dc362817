/* L1000(F, p) applies the macro F to the thousand numbers p000 … p999 (L10 and L100 to ten
 * and a hundred): fixtures that define many functions name and list them with it. */
#ifndef FIXTURE_NUMBERED_H
#define FIXTURE_NUMBERED_H

#define L10(F, p) F(p##0) F(p##1) F(p##2) F(p##3) F(p##4) F(p##5) F(p##6) F(p##7) F(p##8) F(p##9)
#define L100(F, p)                                                                                                    \
  L10(F, p##0) L10(F, p##1) L10(F, p##2) L10(F, p##3) L10(F, p##4) L10(F, p##5) L10(F, p##6) L10(F, p##7)           \
  L10(F, p##8) L10(F, p##9)
#define L1000(F, p)                                                                                                   \
  L100(F, p##0) L100(F, p##1) L100(F, p##2) L100(F, p##3) L100(F, p##4) L100(F, p##5) L100(F, p##6) L100(F, p##7)   \
  L100(F, p##8) L100(F, p##9)

#endif
