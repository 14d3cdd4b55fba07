local native = ...
-- Taken now: frozen data's metamethods keep working for a script that takes a global away (`next = nil`).
local next, pairs, rawequal, rawget, rawset, type = next, pairs, rawequal, rawget, rawset, type
-- The globals table and the package library, taken now: a script that rebinds `_G` or `package` changes
-- neither the table reload and relaunch work on nor where modules are.
local G, package = _ENV, package
local M = {}
local classes = {}

-- Methods every coordinator instance has: the Swift coordinator's own (push, run, finish, ...), which
-- take the instance for the coordinator it holds in `__handle`.
local Base = native.methods
-- A class's methods come first, then Base's: instance -> class -> Base, all plain table lookups.
-- Locked (`__metatable`): a script cannot reach Base through a class and change every coordinator.
local ClassMeta = { __index = Base, __metatable = "coordinator class" }

-- The metatable of a class's instances (one per class). Swift builds each instance itself, a table
-- { __handle = handle, __class = class, onFinish = ..., router = handle } with this metatable:
-- `self.router:push(...)` reads like the sources' Router, the handle having the same methods.
local metas = setmetatable({}, { __mode = "k" })
local function metaFor(class)
  local meta = metas[class]
  if not meta then
    meta = {
      -- The class table itself: a reload redefines it in place, so it takes effect on live instances.
      __index = class,
      __tostring = function(self)
        local handle = rawget(self, "__handle")
        return ("%s#%d"):format(class.__name, handle.id)
      end,
      __name = "Coordinator",
      __metatable = "coordinator",
    }
    metas[class] = meta
  end
  return meta
end

--- Defines (or, on reload, redefines in place) a coordinator class.
function M.coordinator(name)
  if type(name) ~= "string" then error("coordinator name must be a string", 2) end
  if name == "start" or name == "current" then
    error("a coordinator class cannot be named '" .. name .. "': a route's from = \"" .. name .. "\" says where a link starts", 2)
  end
  local class = classes[name]
  if not class then
    class = setmetatable({ __name = name }, ClassMeta)
    classes[name] = class
  end
  return class
end

--- Defines a screen type: flow.screen "Name" { inputs = {...}, outputs = {...}, render = fn }, or
--- flow.screen(name, spec). A statement: it returns nothing.
function M.screen(name, spec)
  if spec ~= nil then native.defineScreen(name, spec) return end
  return function(s) native.defineScreen(name, s) end
end

--- Declares an event the outside world sends: flow.event "pushReceived" { payload = "value", examples = { { thread = 7 } } }.
function M.event(name, spec)
  if spec ~= nil then native.defineEvent(name, spec) return end
  return function(s) native.defineEvent(name, s) end
end

--- Declares a kind of request the outside answers later:
--- flow.request "signIn" { examples = { ok = { user = "Ann" }, failed = { error = "offline" } } }.
function M.request(kind, spec)
  if spec ~= nil then native.defineRequest(kind, spec) return end
  return function(s) native.defineRequest(kind, s) end
end

--- The app's clock: seconds since the app began (virtual: it moves with advance(seconds), or the host).
M.now = native.now
M.idiom = native.idiom

--- A random integer from 1 to m (flow.random(m)) or from m to n (flow.random(m, n)), at most 64 values,
--- drawn in a step and recorded with it: a replay draws the same, a flow test gives it with random(k),
--- and exploration takes each value as a branch. Use it instead of math.random.
M.random = native.random

--- Declares the application: which coordinator runs for each gateway state.
function M.app(flows) native.setFlows(flows) end

--- Declares what exploration compares of two states: flow.view(function(state) return ... end), state the navigation.
M.view = native.view

--- Declares a deep link: flow.route("shop://catalog/:category", { example = {...}, { tab = "Catalog" }, ... }).
M.route = native.route

--- An invariant, true in every state: flow.invariant("the total is never negative", function(app) ... end).
M.invariant = native.invariant

--- A state that can always be reached (no traps): flow.reachable("home can be reached", function(app) ... end).
M.reachable = native.reachable

--- A factory: `make(name)` builds the screen type `choose(inputs)` returns.
function M.factory(name, choose) native.factory(name, choose) end

--- Sets inputs on every shown screen that declares them: update("user", value) or update { user = value }.
M.update = native.update

--- Tears the whole app down and starts the flow of gateway state `state` (its start gets `args`) in one
--- step: flow.restart("authorization").
M.restart = native.restart

M.gateway = setmetatable({}, {
  __index = function(_, key) if key == "state" then return native.getState() end end,
  __newindex = function(_, key, value)
    if key ~= "state" then error("the gateway has only a 'state' field", 2) end
    native.setState(value)
  end,
  __name = "Gateway",
})

--- The app's storage, kept when the app relaunches: flow.storage.onboarded = true; a table read back is read-only.
M.storage = setmetatable({}, {
  __index = native.storageGet,
  __newindex = native.storageSet,
  __pairs = function() return pairs(native.storageAll()) end,
  __tostring = native.describeStorage,
  __name = "Storage",
  __metatable = "storage",
})

--- Declares keys of flow.storage that a snapshot never holds: flow.storageSecrets { "token" }.
M.storageSecrets = native.storageSecrets

M.classes = classes

-- Frozen data (flow.freeze): an empty table whose metatable's __index holds the fields and whose __data
-- is the Swift value (set by Swift, which builds these tables); these are every frozen table's other
-- metamethods.
-- A store whose nested fields are made on first read has a metatable: walking it makes them all first.
local function store(t)
  local s = getmetatable(t).__index
  if getmetatable(s) then native.makeFields(s) end
  return s
end
local DataMeta = {
  __newindex = function(_, key)
    error(("frozen data is read-only (cannot set %s); flow.copy(data) makes a table you can change"):format(tostring(key)), 2)
  end,
  __len = function(t) return #store(t) end,
  __pairs = function(t) return next, store(t), nil end,
  __tostring = function(t) return native.describe(t) end,
  __name = "data",
}

--- A read-only copy of plain data that screens share without copying it: flow.freeze(require "cities").
M.freeze = native.freeze
--- A plain table you can change, with the data of `value` (frozen or not).
M.copy = native.copy

-- For reload: what running the scripts again can change, saved so that a failed reload puts it back.
local function snapshot()
  local function copy(t) local c = {} for k, v in next, t do c[k] = v end return c end
  local loaded = package and package.loaded
  local saved = { globals = copy(G), loaded = loaded and copy(loaded), classes = {}, tables = copy(classes) }
  for name, class in next, classes do saved.classes[name] = copy(class) end
  local function refill(t, from)
    for k in next, t do if from[k] == nil then rawset(t, k, nil) end end
    for k, v in next, from do rawset(t, k, v) end
  end
  return function()
    refill(G, saved.globals)
    if loaded then refill(loaded, saved.loaded) end
    refill(classes, saved.tables) -- the class tables themselves: live instances and globals hold them
    for name, c in next, saved.classes do refill(classes[name], c) end
  end
end

-- For reload: the functions the scripts define where they can be found (class methods, globals, fields
-- of loaded modules), to match old closures with their new versions.
local function definitions()
  local list, seen = {}, {}
  local function scan(t)
    for _, v in next, t do
      if type(v) == "function" and not seen[v] then seen[v] = true; list[#list + 1] = v end
    end
  end
  for _, class in next, classes do scan(class) end
  scan(G)
  if package then for _, m in next, package.loaded do if type(m) == "table" then scan(m) end end end
  return list
end

-- For relaunch: what the scripts' runs change in the globals and modules. `before` (before each run of a
-- main script) and `note` (after it) find what the run changed; `reset` puts those globals back as they
-- were before the run that first changed them, unloads the modules the runs loaded and forgets every
-- class, so that running the scripts again finds what a new process would (globals set otherwise, by a
-- handler or a REPL line, are not the scripts').
local function launchMark()
  local function copy(t) local c = {} for k, v in next, t do c[k] = v end return c end
  local loaded = package and package.loaded
  local original, touched, added = {}, {}, {}
  local globals, modules
  local mark = {}
  function mark.before() globals, modules = copy(G), loaded and copy(loaded) end
  function mark.note()
    local function change(k, was) if not touched[k] then touched[k] = true; original[k] = was end end
    for k, v in next, G do if not rawequal(globals[k], v) then change(k, globals[k]) end end
    for k, v in next, globals do if rawget(G, k) == nil then change(k, v) end end
    if loaded then for k in next, loaded do if modules[k] == nil then added[k] = true end end end
    globals, modules = nil, nil -- the copies would keep what the globals held alive
  end
  function mark.reset(keep)
    for k in next, touched do if not keep[k] then rawset(G, k, original[k]) end end
    if loaded then for k in next, added do loaded[k] = nil end end
    for name in next, classes do classes[name] = nil end
  end
  return mark
end

-- The primitives the snapshot codec (StateCodec, compiled at the first snapshot) works with, taken now:
-- a script that later takes a global away (`table = nil`) cannot break a snapshot.
local primitives = {
  next = next, pairs = pairs, ipairs = ipairs, type = type, getmetatable = getmetatable, rawset = rawset,
  error = error, tostring = tostring, sort = table and table.sort, mathtype = math and math.type,
}

return M, metaFor, snapshot, definitions, DataMeta, primitives, launchMark
