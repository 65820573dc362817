#include "shapes.h"

namespace shapes {
namespace {

class Square final : public Shape {
 public:
  explicit Square(double side) : Shape("square"), side_(side) {}
  double area() const override { return side_ * side_; }

 private:
  double side_;
};

class Circle final : public Shape {
 public:
  explicit Circle(double radius) : Shape("circle"), radius_(radius) {}
  double area() const override { return 3.14159265358979 * radius_ * radius_; }

 private:
  double radius_;
};

struct Registry {
  std::vector<std::string> kinds;
  Registry() {
    kinds.push_back("square");
    kinds.push_back("circle");
  }
};

// Constructed by the library's static initializer, before main.
Registry registry;

}  // namespace

double Canvas::totalArea() const {
  double total = 0;
  for (const auto& shape : shapes_) total += shape->area();
  return total;
}

std::string Canvas::describe() const {
  std::string text;
  for (const auto& shape : shapes_) {
    if (!text.empty()) text += ", ";
    text += shape->name();
  }
  return text;
}

std::unique_ptr<Shape> makeSquare(double side) { return std::make_unique<Square>(side); }
std::unique_ptr<Shape> makeCircle(double radius) { return std::make_unique<Circle>(radius); }
const std::vector<std::string>& registeredKinds() { return registry.kinds; }

}  // namespace shapes
