import Foundation

/// Tests/Fixtures/cold/sections.c built as a PIE with lld: known pages of .rodata and .data
/// touched at launch, 16 pages apart (or `stride` apart), and 4,096 relocations.
public func buildColdSectionsFixture(in directory: TemporaryDirectory, name: String = "sections", stride: Int? = nil)
  throws -> String
{
  let output = directory.file(name)
  try runChecked(
    Toolchain.clang,
    ["-O1", "-fPIE", "-pie", "-fuse-ld=lld", PackagePaths.fixtures + "/cold/sections.c", "-o", output]
      + (stride.map { ["-DSTRIDE=\($0)"] } ?? []))
  return output
}
