int widget_a(int x);
int widget_b(int x);
int widget_c(int x);
int widget_d(int x);
