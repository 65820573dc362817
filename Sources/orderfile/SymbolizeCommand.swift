import ArgumentParser
import OrderfileCommands

struct SymbolizeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "symbolize",
    abstract: "Name the function, and optionally the source line, at each address read from stdin.",
    discussion: """
      Reads one address per line from stdin: hexadecimal, with or without 0x,
      an ELF virtual address as nm prints it (not a load address). Prints one
      line per address, in input order:

        <address> TAB <function> [TAB <file>:<line>]

      with '??' for what is not known. Names are demangled (C++, Rust and Swift)
      unless --no-demangle. The binary's function symbols are indexed once;
      --lines also reads its DWARF line tables. Blank lines are skipped; any
      other line that is not an address is an error (exit 65).

      Examples:
        nm --defined-only app | awk '$2 ~ /^[tT]$/ {print $1}' \\
          | orderfile symbolize --binary app
        echo 0x1140 | orderfile symbolize --binary app --lines \\
          --no-demangle
      """
  )

  @Option(help: ArgumentHelp("The ELF executable or shared library the addresses belong to.", valueName: "path"))
  var binary: String

  @Flag(help: "Also print the source file and line of each address, from DWARF.")
  var lines = false

  @Flag(name: .customLong("no-demangle"), help: "Print linkage (mangled) names.")
  var noDemangle = false

  func run() throws {
    try Terminal.run {
      try SymbolizeRequest(binary: binary, demangle: !noDemangle, sourceLines: lines).runOnStandardInput()
    }
  }
}
