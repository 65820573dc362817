import OrderfileMerge
import Testing

@Suite("TRACE:WEIGHT arguments")
struct WeightedTraceTests {
  @Test("a trace alone weighs 1")
  func plain() throws {
    #expect(try WeightedTrace(argument: "runs/cold.trace") == WeightedTrace(path: "runs/cold.trace", weight: 1))
  }

  @Test("a number after the last colon is the weight")
  func weighted() throws {
    #expect(try WeightedTrace(argument: "cold.trace:3") == WeightedTrace(path: "cold.trace", weight: 3))
    #expect(try WeightedTrace(argument: "a:b/cold.trace:0.5") == WeightedTrace(path: "a:b/cold.trace", weight: 0.5))
    #expect(try WeightedTrace(argument: "run:2:1") == WeightedTrace(path: "run:2", weight: 1))
  }

  @Test("a colon followed by a non-number is part of the path")
  func colonInPath() throws {
    #expect(try WeightedTrace(argument: "host:traces/x.trace") == WeightedTrace(path: "host:traces/x.trace"))
  }

  @Test("zero, negative and malformed weights are refused, naming the argument")
  func badWeights() {
    for argument in ["x.trace:0", "x.trace:-1", "x.trace:2x", "x.trace:1e999", ":2"] {
      #expect(throws: MergeError.self, "\(argument)") { try WeightedTrace(argument: argument) }
    }
    #expect(
      MergeError.badWeight(argument: "x.trace:0", weight: "0").errorDescription
        == "'x.trace:0': weight '0' is not a positive number (write TRACE:WEIGHT, e.g. cold.trace:2)")
  }
}
