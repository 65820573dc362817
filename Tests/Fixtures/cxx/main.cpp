#include <cstdio>
#include <map>
#include <string>

#include "shapes.h"

namespace {

// A static initializer of the executable.
std::map<std::string, int> counts = {{"launch", 1}};

int countOf(const std::string& key) {
  auto found = counts.find(key);
  return found == counts.end() ? 0 : found->second;
}

}  // namespace

int main(int argc, char** argv) {
  shapes::Canvas canvas;
  canvas.add(shapes::makeSquare(2));
  canvas.add(shapes::makeCircle(1));
  std::printf(
      "%zu shapes (%s), area %.2f, %zu kinds, %d launch\n", canvas.size(), canvas.describe().c_str(),
      canvas.totalArea(), shapes::registeredKinds().size(), countOf(argc > 1 ? argv[1] : "launch"));
  return 0;
}
