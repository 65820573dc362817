import Foundation
import OrderfileProfile
import OrderfileRecording
import OrderfileSupport
import OrderfileSymbolization
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// The in-process recorder built by Scripts/build-runtime beside the tool.
private let inProcessLibrary = PackagePaths.binaryDirectory + "/" + InProcessRecorder.libraryName

/// Tests/Fixtures/breakpoints/app.c, its library libapplib.so.0.0.0 (SONAME libapplib.so.0,
/// reached through that link) and plugin.so. The executable also links system libraries an
/// app would (libdw and the libraries it needs, libstdc++, glibc's own), each one more module
/// the in-process recorder looks through whenever a library is loaded.
private struct AppFixture {
  let app: String
  let plugin: String
  /// The library's SONAME link, as the loader opens it.
  let link: String
  /// The file the link leads to.
  let library: String

  init(in work: TemporaryDirectory) throws {
    let sources = PackagePaths.fixtures + "/breakpoints/"
    library = work.file("libapplib.so.0.0.0")
    link = work.file("libapplib.so.0")
    try runChecked(
      Toolchain.clang,
      [
        "-O2", "-g", "-fPIC", "-shared", sources + "applib.c", sources + "applib_static.cpp",
        "-Wl,-soname,libapplib.so.0", "-Wl,--build-id", "-o", library,
      ])
    #expect(symlink("libapplib.so.0.0.0", link) == 0)
    #expect(symlink("libapplib.so.0", work.file("libapplib.so")) == 0)
    plugin = try buildBreakpointFixture(["plugin.c"], in: work, flags: ["-fPIC", "-shared"], output: "plugin.so")
    app = try buildBreakpointFixture(
      ["app.c"], in: work,
      flags: [
        "-L", work.path, "-lapplib", "-Wl,-rpath," + work.path, "-ldl", "-Wl,--no-as-needed", "-ldw", "-lstdc++",
        "-lrt", "-lutil", "-lresolv", "-Wl,--as-needed",
      ], output: "app")
  }
}

/// Builds the app in `work` and records it with `method`, as `orderfile record --recorder`
/// does, to `launch.trace` there.
private func recordApp(_ method: NoRebuildMethod, _ arguments: [String] = [], in work: TemporaryDirectory) throws
  -> (fixture: AppFixture, recording: Recording)
{
  let fixture = try AppFixture(in: work)
  let recording = try RecorderChooser(inProcessLibrary: { _ in inProcessLibrary }).record(
    RecordingRequest(
      output: work.file("launch.trace"), program: fixture.app, arguments: [fixture.plugin] + arguments, method: method))
  #expect(recording.status == 0)
  return (fixture, recording)
}

@Suite(
  "Apps with a library of their own: both recorders write the same trace of it", .serialized,
  .enabled(
    if: FileManager.default.fileExists(atPath: inProcessLibrary),
    "needs Scripts/build-runtime's libOrderfileInProcess.so"))
struct AppLibraryRecordingTests {
  @Test(
    "a library the loader opens through its SONAME link is named by its real file, with its build-id",
    arguments: [NoRebuildMethod.inProcess, .tracer])
  func realFileName(method: NoRebuildMethod) throws {
    let work = try TemporaryDirectory("orderfile-app-name")
    let fixture = try recordApp(method, in: work).fixture
    let trace = work.file("launch.trace")
    let read = try TraceReader.read(path: trace)
    let library = read.modules.filter { $0.path.contains("/libapplib.so") }
    #expect(library.map(\.path) == [fixture.library], "\(read.modules.map(\.path))")
    let buildID = try #require(try BinaryLocator.buildID(ofFileAt: fixture.library))
    #expect(library.first.map { BuildID($0.buildID) } == buildID)
  }

  @Test(
    "the library's constructors and C++ initializer come before main, in record order and in time; a dlopened plugin's constructor before its code",
    arguments: [NoRebuildMethod.inProcess, .tracer])
  func constructorsBeforeMain(method: NoRebuildMethod) throws {
    let work = try TemporaryDirectory("orderfile-app-constructors")
    let fixture = try recordApp(method, in: work).fixture
    let trace = work.file("launch.trace")
    let read = try TraceReader.read(path: trace)
    let library = try calls(in: read, module: "/libapplib.so.0.0.0")
    let app = try calls(in: read, module: "/app")
    let plugin = try calls(in: read, module: "/plugin.so")
    func first(_ name: String, in calls: [(name: String, call: FirstCall)]) throws -> FirstCall {
      try #require(calls.first { $0.name == name }?.call, "\(name) not recorded: \(calls.map(\.name))")
    }
    let main = try first("main", in: app)
    let start = try first("_start", in: app)
    // Record order: each record's index in the trace.
    func index(_ call: FirstCall) -> Int { read.records.firstIndex(of: call) ?? -1 }
    for name in ["applib_constructor", "applib_setup", "_GLOBAL__sub_I_applib_static.cpp", "_ZN8RegistryC1Ev"] {
      let call = try first(name, in: library)
      #expect(index(call) < index(start) && index(start) < index(main), "\(name) after _start or main")
      // The loader runs the library's initializers, then the executable's entry.
      #expect(call.timeNanoseconds <= start.timeNanoseconds, "\(name) stamped after _start")
      #expect(call.timeNanoseconds <= main.timeNanoseconds, "\(name) stamped after main")
    }
    #expect(try first("plugin_constructor", in: plugin).timeNanoseconds >= main.timeNanoseconds)
    #expect(
      plugin.map(\.name).filter { $0.hasPrefix("plugin_") } == ["plugin_constructor", "plugin_setup", "plugin_entry"])
    // One thread: its clock never goes back from one first call to the next.
    let times = read.records.map(\.timeNanoseconds)
    let back = zip(times, times.dropFirst()).filter { $0.0 > $0.1 }
    #expect(back.isEmpty, "times going back: \(back.prefix(5))")

    // Before main, per library, as the report shows it: the library's initializers, then the executable's.
    let profile = ProfileBuilder().build(trace: read, symbols: SymbolTable(trace: read, binaries: BinaryResolver()))
    let preMain = try #require(profile.preMain)
    #expect(preMain.modules.map(\.module) == [fixture.library, fixture.app], "\(preMain.modules.map(\.module))")
    #expect(preMain.modules.first?.functions.contains("applib_constructor") == true)
  }

  @Test(
    "children that run none of the program's code (/bin/true, env true) leave no trace and are not listed; a child that runs its code keeps its own",
    arguments: [NoRebuildMethod.inProcess, .tracer])
  func childrenWithoutTheProgramsCode(method: NoRebuildMethod) throws {
    let work = try TemporaryDirectory("orderfile-app-children")
    let recording = try recordApp(method, ["children"], in: work).recording
    #expect(recording.execTraces.isEmpty, "\(recording.execTraces)")
    #expect(recording.childTraces.count == 1, "\(recording.childTraces)")
    let child = try #require(recording.childTraces.first)
    #expect(try names(in: TraceReader.read(path: child), module: "/app").contains("child_work"))
    let left = try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.hasPrefix("launch.trace") }
    #expect(left.sorted() == ["launch.trace", PathName.split(child).base].sorted())
  }

  /// In-process only: the tracer refuses a recording whose started process (the shell here)
  /// made no first call, whatever its children did.
  @Test(
    "in-process: a system program the program runs that loads a plugin of its own starts its trace at that dlopen, the plugin's constructor first",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs /usr/bin/python3"))
  func systemProgramLoadingAPlugin() throws {
    let work = try TemporaryDirectory("orderfile-app-python")
    let plugin = try buildBreakpointFixture(["plugin.c"], in: work, flags: ["-fPIC", "-shared"], output: "plugin.so")
    // The shell record starts runs python3 in a child: a system program, nothing of it armed,
    // until ctypes loads the plugin.
    let script = "import ctypes, sys; sys.exit(ctypes.CDLL(sys.argv[1]).plugin_entry(1) - 42)"
    let recording = try InProcessRecorder(library: inProcessLibrary).record(
      RecordingRequest(
        output: work.file("launch.trace"), program: "/bin/sh",
        arguments: ["-c", "/usr/bin/python3 -c \"$0\" \"$1\"", script, plugin]))
    #expect(recording.status == 0)
    #expect(recording.childTraces.count == 1, "\(recording.childTraces)")
    let child = try TraceReader.read(path: try #require(recording.childTraces.first))
    #expect(
      try names(in: child, module: "/plugin.so").filter { $0.hasPrefix("plugin_") } == [
        "plugin_constructor", "plugin_setup", "plugin_entry",
      ])
  }
}
