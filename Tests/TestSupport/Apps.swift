import CoordinatorTools

/// A runtime of scripts/app.lua with the driver functions, started.
public func appRuntime(state: AppState = .authorization) throws -> ScriptRuntime {
    let runtime = try ScriptRuntime(state: state, driverFunctions: true)
    try runtime.load(script: repositoryRoot + "/scripts/app.lua")
    try runtime.start()
    return runtime
}

/// A runtime with the driver functions that has run `source` (as the chunk `=app`, without tracebacks in
/// its errors) and started the app it declares, navigating through `router` when given.
public func startedApp(_ source: String, router: ((Application) -> any Router)? = nil) throws -> ScriptRuntime {
    let runtime = try ScriptRuntime(driverFunctions: true)
    runtime.lua.tracebacks = false
    try runtime.run(source, name: "=app")
    try runtime.start(router: router)
    return runtime
}

/// A runtime with the driver functions that loaded `source` as the file `app.lua` (in a folder of its
/// own) and started the app it declares in gateway state `state` on device `idiom`, without tracebacks in
/// its errors.
public func startedAppFile(_ source: String, state: String = "authorization", idiom: Idiom = .phone) throws -> ScriptRuntime {
    let folder = try TemporaryDirectory()
    let runtime = try ScriptRuntime(stateNamed: state, driverFunctions: true)
    runtime.app.setIdiom(idiom)
    runtime.lua.tracebacks = false
    try runtime.load(script: folder.write("app.lua", source))
    try runtime.start()
    return runtime
}

/// A snapshot's document without its steps: what must be equal after a restore or a time travel.
public func snapshotState(_ json: String) throws -> FlowValue {
    let document = try FlowValue(json: json)
    return .record(FlowRecord((document.recordValue?.fields ?? []).filter { $0.key != "steps" }.map { ($0.key, $0.value) }))
}

/// An app with a finding of every kind for exploration: an error (South), a flow left running without a
/// screen (Ghost), a screen left alive (About, kept in a global after close), an output nobody handles
/// (Cities' share), a dead end (Help). And a way to end the process that expands a state: picking East
/// runs `kill -9` on it when `EXPLORE_KILL` is `always`, or when it is `once:FILE` and FILE is not there
/// yet (it is made first), to test what becomes of a worker's batch when the worker dies.
public let explorationFaultsApp = """
    local flow = require "coordinator"
    flow.screen "Regions" { inputs = { "regions" }, outputs = { pick = { from = "regions" }, "help", "about" } }
    flow.screen "Cities" { inputs = { "region" }, outputs = { "done", "share" } }
    flow.screen "Help" { render = function() return "no way out" end }
    flow.screen "About" { outputs = { "close" } }
    local Ghost = flow.coordinator "Ghost"
    function Ghost:start() end
    local Help = flow.coordinator "Help"
    function Help:start() self:setRoot("Help") end
    kept = {}
    local function killedHere()
      local kill = os.getenv("EXPLORE_KILL")
      if kill == "always" then return true end
      local marker = kill and kill:match("^once:(.+)$")
      if not marker or io.open(marker) then return false end
      io.open(marker, "w"):close()
      return true
    end
    local App = flow.coordinator "App"
    function App:start()
      local regions = self:push("Regions", { regions = { "North", "South", "East", "West", "Up", "Down" } })
      regions.onPick = function(region)
        if region == "South" then error("no cities for " .. region) end
        if region == "East" and killedHere() then os.execute("kill -9 $PPID") end
        local cities = self:push("Cities", { region = region })
        cities.onDone = function() self:run(Ghost) end
      end
      regions.onHelp = function() self:run(Help) end
      regions.onAbout = function()
        local about = self:push("About")
        about.onClose = function() kept[#kept + 1] = about; self:pop() end
      end
    end
    flow.app(App)
    """

/// An app that only the first process to load it can load, when `EXPLORE_LOADED` names a file (made by
/// the first load): every later load fails, as a worker does whose machine lacks something the app needs.
public let firstLoadOnlyApp = """
    local flow = require "coordinator"
    local marker = os.getenv("EXPLORE_LOADED")
    if marker then
      local seen = io.open(marker)
      if seen then seen:close(); error("only the first process loads this app") end
      io.open(marker, "w"):close()
    end
    flow.screen "Home" { outputs = { "next" } }
    flow.screen "Next" {}
    local Main = flow.coordinator "Main"
    function Main:start() self:push("Home").onNext = function() self:push("Next") end end
    flow.app(Main)
    """
