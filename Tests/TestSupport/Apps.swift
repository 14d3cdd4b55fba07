import CoordinatorTools

/// A runtime of scripts/app.lua with the driver functions, started.
public func appRuntime(state: AppState = .authorization) throws -> ScriptRuntime {
    let runtime = try ScriptRuntime(state: state, driverFunctions: true)
    try runtime.load(script: repositoryRoot + "/scripts/app.lua")
    try runtime.start()
    return runtime
}

/// A snapshot's document without its steps: what must be equal after a restore or a time travel.
public func snapshotState(_ json: String) throws -> FlowValue {
    let document = try FlowValue(json: json)
    return .record(FlowRecord((document.recordValue?.fields ?? []).filter { $0.key != "steps" }.map { ($0.key, $0.value) }))
}
