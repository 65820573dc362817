// A small C++ library with what gcc's -finstrument-functions keeps out of line and an
// optimized release build inlines away: small members, std:: templates, a static initializer.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace shapes {

class Shape {
 public:
  explicit Shape(std::string name) : name_(std::move(name)) {}
  virtual ~Shape() = default;
  virtual double area() const = 0;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

class Canvas {
 public:
  void add(std::unique_ptr<Shape> shape) { shapes_.push_back(std::move(shape)); }
  std::size_t size() const { return shapes_.size(); }
  double totalArea() const;
  std::string describe() const;

 private:
  std::vector<std::unique_ptr<Shape>> shapes_;
};

std::unique_ptr<Shape> makeSquare(double side);
std::unique_ptr<Shape> makeCircle(double radius);
/// Names registered by the library's static initializer.
const std::vector<std::string>& registeredKinds();

}  // namespace shapes
