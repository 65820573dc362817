// A C++ fixture for demangling and for constructor symbols (C1/C2) at one address.

namespace shapes {
struct Widget {
  explicit Widget(int value);
  int poke(int amount) const;
  int value;
};

Widget::Widget(int value) : value(value) {}

int Widget::poke(int amount) const { return value + amount; }
}  // namespace shapes

int main(int argc, char **) {
  shapes::Widget widget(argc);
  return widget.poke(1) == argc + 1 ? 0 : 1;
}
