import OrderfileBuild
import OrderfileLayout
import OrderfileMerge
import OrderfileOrdering
import OrderfileRecording
import OrderfileRegeneration
import OrderfileSupport

// The library values a command's arguments name: enums, rates and paths with a meaning.
// They are the whole vocabulary the executable sees (it imports this module alone), so a
// command can parse them but never build a library object itself: that is each request's
// job. A type added here is a plain value, never an engine (an estimator, a recorder).

public typealias OrderfileFormat = OrderfileOrdering.OrderfileFormat
public typealias InstrumentingCompiler = OrderfileBuild.InstrumentingCompiler
public typealias BuildSystem = OrderfileBuild.BuildSystem
public typealias Language = OrderfileBuild.Language
public typealias Build = OrderfileBuild.Build
public typealias CrossTarget = OrderfileBuild.CrossTarget
public typealias Rate = OrderfileSupport.Rate
public typealias Percentage = OrderfileSupport.Percentage
public typealias Gate = OrderfileSupport.Gate
public typealias ReportFormat = OrderfileSupport.ReportFormat
/// `estimate --cold-method`: `auto`, `page-cache` or `perf`.
public typealias ColdLaunchMethodChoice = OrderfileLayout.ColdLaunchReferee.MethodChoice
public typealias WeightedTrace = OrderfileMerge.WeightedTrace
public typealias RecordingMode = OrderfileRecording.RecordingMode
public typealias NoRebuildMethod = OrderfileRecording.NoRebuildMethod
/// `record`'s options, as one value (`RecordRequest` takes it whole).
public typealias RecordingRequest = OrderfileRecording.RecordingRequest
/// `--emulator`: the command that runs a program of another machine, split into words.
public typealias Emulator = OrderfileRecording.Emulator
public typealias RegenerationOptions = OrderfileRegeneration.RegenerationOptions
public typealias RegenerationProgress = OrderfileRegeneration.RegenerationProgress
