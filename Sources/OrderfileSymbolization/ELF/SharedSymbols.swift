import CLibdw
import Foundation
import OrderfileSupport

#if canImport(Glibc)
  import Glibc
#endif

extension ELFFile {
  /// The `DT_NEEDED` names and the `DT_RUNPATH`/`DT_RPATH` directories of `.dynamic`.
  func dynamicDependencies() -> (needed: [String], searchPaths: [String]) {
    var needed: [String] = []
    var searchPaths: [String] = []
    forEachSection { header, section, _ in
      guard header.sh_type == UInt32(SHT_DYNAMIC), header.sh_entsize > 0, let data = elf_getdata(section, nil) else {
        return
      }
      for index in 0..<Int32(clamping: header.sh_size / header.sh_entsize) {
        var entry = GElf_Dyn()
        guard gelf_getdyn(data, index, &entry) != nil else { continue }
        let tag = entry.d_tag
        guard tag == DT_NEEDED || tag == DT_RUNPATH || tag == DT_RPATH,
          let text = elf_strptr(elf, Int(header.sh_link), Int(entry.d_un.d_val))
        else { continue }
        let value = String(cString: text)
        if tag == DT_NEEDED {
          needed.append(value)
        } else {
          searchPaths += value.split(separator: ":").map(String.init)
        }
      }
    }
    return (needed, searchPaths)
  }

  /// The names of `.dynsym` by whether this file defines them with global (or weak) binding.
  func dynamicSymbolNames(defined: Bool) -> Set<String> {
    var names = Set<String>()
    insertDynamicSymbolNames(defined: defined, into: &names)
    return names
  }

  /// The same, added to `names`: the names of many libraries go into one set, each hashed once.
  func insertDynamicSymbolNames(defined: Bool, into names: inout Set<String>) {
    forEachDynamicSymbol { symbol, name in
      if (symbol.st_shndx != UInt16(SHN_UNDEF)) == defined { names.insert(name) }
    }
  }

  /// The defined names of `.dynsym` that carry a version of this file's own (`foo@@V1`):
  /// version index 2 or above in `.gnu.version`, where 1 is the unversioned global one.
  /// Added to `names`, with every library's in one set.
  func insertVersionedDynamicSymbolNames(into names: inout Set<String>) {
    var versions: UnsafeBufferPointer<UInt16>?
    forEachSection { header, section, _ in
      guard header.sh_type == UInt32(SHT_GNU_versym), let data = elf_getdata(section, nil),
        let bytes = data.pointee.d_buf
      else { return }
      versions = UnsafeBufferPointer(
        start: bytes.assumingMemoryBound(to: UInt16.self), count: Int(data.pointee.d_size) / MemoryLayout<UInt16>.size)
    }
    guard let versions else { return }
    forEachIndexedDynamicSymbol { index, symbol, name in
      // The top bit marks a hidden (non-default) version; the rest is the version's index.
      guard symbol.st_shndx != UInt16(SHN_UNDEF), index < versions.count, versions[index] & 0x7fff >= 2 else { return }
      names.insert(name)
    }
  }

  /// Every named symbol of `.dynsym`.
  func forEachDynamicSymbol(_ body: (GElf_Sym, String) -> Void) {
    forEachIndexedDynamicSymbol { _, symbol, name in body(symbol, name) }
  }

  /// Every named symbol of `.dynsym`, with its index in the table.
  func forEachIndexedDynamicSymbol(_ body: (Int, GElf_Sym, String) -> Void) {
    forEachSection { header, section, _ in
      guard header.sh_type == UInt32(SHT_DYNSYM), header.sh_entsize > 0, let data = elf_getdata(section, nil) else {
        return
      }
      for index in 0..<Int32(clamping: header.sh_size / header.sh_entsize) {
        var symbol = GElf_Sym()
        guard gelf_getsym(data, index, &symbol) != nil, symbol.st_name != 0,
          let name = elf_strptr(elf, Int(header.sh_link), Int(symbol.st_name))
        else { continue }
        body(Int(index), symbol, String(cString: name))
      }
    }
  }
}

/// How a program's main thread ends, read from what its `.dynsym` imports.
public enum MainThreadEnd {
  /// Functions that end the calling thread with `pthread_exit` and never return to `main`:
  /// Swift's async `main` drains its queue in `swift_task_asyncMainDrainQueue`, which calls
  /// `dispatch_main` on Linux, as `dispatchMain()` does. glibc's `pthread_exit` unwinds the
  /// thread's stack (`_Unwind_ForcedUnwind`), so the launch looks up `main`'s frame
  /// description in `.eh_frame_hdr`.
  static let unwindingImports: Set<String> = ["swift_task_asyncMainDrainQueue", "dispatch_main"]

  /// Whether the program at `path` imports a function that ends its main thread by a forced
  /// unwind through `main` (see `unwindingImports`); false for a file that cannot be read.
  public static func unwindsMain(programAt path: String) -> Bool {
    guard let file = try? ELFFile(path: path) else { return false }
    return !file.dynamicSymbolNames(defined: false).isDisjoint(with: unwindingImports)
  }
}

/// One exported function looked up by name in `.dynsym` alone: no symbol table, debug file
/// or index is read, so it costs little even for a C library with debug files installed.
public enum DynamicSymbol {
  /// The ELF virtual address of the function `name` that the file at `path` defines, or nil.
  public static func address(of name: String, inFileAt path: String) -> UInt64? {
    guard let file = try? ELFFile(path: path) else { return nil }
    var found: UInt64?
    file.forEachDynamicSymbol { symbol, symbolName in
      if found == nil, symbolName == name, symbol.st_shndx != UInt16(SHN_UNDEF), symbol.st_value != 0 {
        found = symbol.st_value
      }
    }
    return found
  }
}

/// Which names a link would find in a shared library rather than in the program's objects.
///
/// lld's `--symbol-ordering-file` looks each name up in its global symbol table. A name
/// that only a shared library defines there (glibc's `pthread_atfork`, whose copy in the
/// executable comes hidden from `libc_nonshared.a`) is refused: "unable to order shared
/// symbol". The linked binary tells which names those are: a name its libraries export
/// that the binary itself does not export.
public struct SharedLibrarySymbols: Sendable {
  /// Names the binary's `DT_NEEDED` libraries export.
  public let exported: Set<String>
  /// Names the binary itself defines in `.dynsym` (exported: the objects' global definitions won).
  public let ownExports: Set<String>
  /// Of `exported`, the names a library defines with a version of its own (`foo@@V1`).
  /// lld then also holds a shared symbol `foo@V1`, which an orderfile entry `foo` meets:
  /// it warns "unable to order shared symbol" yet places the binary's own copy.
  public let versionedExports: Set<String>
  /// `DT_NEEDED` libraries that could not be found or read.
  public let unreadLibraries: [String]

  /// Reads the binary at `path` and the shared libraries it needs, looked for in its
  /// run paths and the system's library directories.
  public init(binary path: String) throws {
    let file = try ELFFile(path: path)
    let (needed, runPaths) = file.dynamicDependencies()
    let origin = PathName.directory(of: path)
    let directories =
      runPaths.map { $0.replacingOccurrences(of: "$ORIGIN", with: origin) } + [
        "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
        "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib",
      ]
    var exported = Set<String>()
    var versioned = Set<String>()
    var unread: [String] = []
    for library in needed {
      let candidates = library.contains("/") ? [library] : directories.map { $0 + "/" + library }
      guard let found = candidates.lazy.compactMap({ try? ELFFile(path: $0) }).first else {
        unread.append(library)
        continue
      }
      found.insertDynamicSymbolNames(defined: true, into: &exported)
      found.insertVersionedDynamicSymbolNames(into: &versioned)
    }
    self.exported = exported
    versionedExports = versioned
    ownExports = file.dynamicSymbolNames(defined: true)
    unreadLibraries = unread
  }

  /// Whether lld resolves `name` to a shared library's symbol when linking this binary again.
  public func resolvesToSharedLibrary(_ name: String) -> Bool {
    exported.contains(name) && !ownExports.contains(name)
  }

  /// Whether lld warns "unable to order shared symbol" for an entry `name` that it places
  /// all the same: the binary's own copy wins, and a library also versions the name.
  public func warnsButPlaces(_ name: String) -> Bool {
    versionedExports.contains(name) && ownExports.contains(name)
  }
}
