import OrderfileSupport
import Testing

@Suite("ByteLines: a byte buffer's lines as ranges")
struct ByteLinesTests {
  private func lines(_ text: String) -> [String] {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { buffer in
      ByteLines(buffer).map { String(decoding: buffer[$0], as: UTF8.self) }
    }
  }

  @Test(
    "split at each newline: blank lines kept, a last line without a newline kept, none after a final newline",
    arguments: [
      ("", [String]()), ("\n", [""]), ("a", ["a"]), ("a\n", ["a"]), ("a\n\nb", ["a", "", "b"]),
      ("\n\nx\n", ["", "", "x"]), ("one\r\ntwo", ["one\r", "two"]),
    ])
  func split(text: String, expected: [String]) {
    #expect(lines(text) == expected)
  }

  @Test("a line longer than any word size is one line, its bytes intact")
  func longLine() {
    let long = String(repeating: "0123456789abcdef", count: 4097)
    #expect(lines(long + "\n" + long) == [long, long])
  }
}
