import Testing
import _OrderfileTestSupport

/// `estimate` and `report` run the program only with some flags: the same three checks,
/// in the same words, in both.
@Suite("the program after '--' and --time-limit come with the flag that runs it")
struct RunWhenAskedCLITests {
  @Test(
    "each check, in estimate and in report: exit 64 and the one line that says what is missing",
    arguments: [
      (
        ["estimate", "--trace", "t", "--binary", "b", "--measure"],
        "--measure runs the program: give the command after '--'"
      ),
      (["estimate", "--trace", "t", "--binary", "b", "--measure-cold"], "--measure-cold runs the program"),
      (
        ["estimate", "--trace", "t", "--binary", "b", "--", "./app"],
        "a command after '--' is run only with --measure or --measure-cold"
      ),
      (
        ["estimate", "--trace", "t", "--binary", "b", "--time-limit", "5"],
        "--time-limit needs --measure or --measure-cold"
      ),
      (["report", "t", "--measure-cold"], "--measure-cold runs the program: give the command after '--'"),
      (["report", "t", "--", "./app"], "a command after '--' is run only with --measure-cold"),
      (["report", "t", "--time-limit", "5"], "--time-limit needs --measure-cold"),
    ])
  func check(arguments: [String], message: String) throws {
    let result = try orderfile(arguments)
    #expect(result.status == 64, "\(result.standardError)")
    #expect(result.standardError.contains("Error: \(message)"), "\(result.standardError)")
  }
}
