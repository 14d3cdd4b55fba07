/// The Lua half of the `coordinator` module: classes and instances, over the Swift
/// primitives in `native`. Kept small; everything that touches the core is Swift.
enum Prelude {
    static let source = #"""
    local native = ...
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
      local class = classes[name]
      if not class then
        class = setmetatable({ __name = name }, ClassMeta)
        classes[name] = class
      end
      return class
    end

    --- Defines a screen type: flow.screen "Name" { inputs = {...}, outputs = {...}, render = fn }.
    function M.screen(name, spec)
      if spec ~= nil then return native.defineScreen(name, spec) end
      return function(s) return native.defineScreen(name, s) end
    end

    --- Declares the application: which coordinator runs for each gateway state.
    function M.app(flows) native.setFlows(flows) end

    --- Declares a deep link: flow.route("shop://catalog/:category", { example = {...}, { tab = "Catalog" }, ... }).
    M.route = native.route

    --- A factory: `make(name)` builds the screen type `choose(inputs)` returns.
    function M.factory(name, choose) native.factory(name, choose) end

    --- Sets inputs on every shown screen that declares them: update("user", value) or update { user = value }.
    M.update = native.update

    M.gateway = setmetatable({}, {
      __index = function(_, key) if key == "state" then return native.getState() end end,
      __newindex = function(_, key, value)
        if key ~= "state" then error("the gateway has only a 'state' field", 2) end
        native.setState(value)
      end,
      __name = "Gateway",
    })

    M.classes = classes

    -- Frozen data (flow.freeze): an empty table whose metatable's __index holds the fields and whose __data
    -- is the Swift value (set by Swift, which builds these tables); these are every frozen table's other
    -- metamethods.
    local function store(t) return getmetatable(t).__index end
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
      local saved = { globals = copy(_G), loaded = loaded and copy(loaded), classes = {} }
      for name, class in next, classes do saved.classes[name] = copy(class) end
      local function refill(t, from)
        for k in next, t do if from[k] == nil then rawset(t, k, nil) end end
        for k, v in next, from do rawset(t, k, v) end
      end
      return function()
        refill(_G, saved.globals)
        if loaded then refill(loaded, saved.loaded) end
        for name in next, classes do if not saved.classes[name] then classes[name] = nil end end
        for name, c in next, saved.classes do refill(classes[name], c) end
      end
    end

    -- For snapshots: the data each coordinator keeps in `self`, field by field, as plain values Swift writes
    -- as JSON. `instances` lists the coordinators' instances in the snapshot's order (false for one without).
    -- A table reached twice (shared by two fields or two coordinators, or in a cycle) is written once as
    -- { ["$id"] = n, ["$value"] = ... } and then as { ["$ref"] = n }; frozen data as { ["$frozen"] = ... };
    -- a table whose keys are neither a sequence nor all strings as { ["$entries"] = { { key, value }, ... } };
    -- a key that starts with "$" gets one more. Left out (their field names listed): functions, coroutines,
    -- userdata (screens), coordinator instances and classes, tables with a metatable of their own (objects
    -- whose methods are code).
    local reserved = { __handle = true, __class = true, router = true, onFinish = true }
    local function isFrozen(t) local mt = getmetatable(t) return type(mt) == "table" and mt.__name == "data" end
    local function isData(v)
      local tv = type(v)
      if tv == "table" then return getmetatable(v) == nil or isFrozen(v) end
      return tv == "string" or tv == "number" or tv == "boolean"
    end
    local function isKey(k) local tk = type(k) return tk == "string" or tk == "number" or tk == "boolean" end
    local function entriesOf(t)
      local list, iterate, subject = {}, next, t
      if isFrozen(t) then iterate, subject = pairs(t) end
      for k, v in iterate, subject do
        if isKey(k) and isData(v) then list[#list + 1] = { k, v } end
      end
      table.sort(list, function(a, b)
        local ta, tb = type(a[1]), type(b[1])
        if ta ~= tb then return ta < tb end
        if ta == "boolean" then return not a[1] and b[1] end
        return a[1] < b[1]
      end)
      return list
    end
    local function fieldsOf(instance)
      local list, skipped = {}, {}
      for k, v in next, instance do
        if type(k) == "string" and not reserved[k] then
          if isData(v) then list[#list + 1] = { k, v } else skipped[#skipped + 1] = k end
        end
      end
      table.sort(list, function(a, b) return a[1] < b[1] end)
      table.sort(skipped)
      return list, skipped
    end
    local function encodeStates(instances)
      local counts = {}
      local function count(t)
        counts[t] = (counts[t] or 0) + 1
        if counts[t] > 1 then return end
        for _, e in ipairs(entriesOf(t)) do if type(e[2]) == "table" then count(e[2]) end end
      end
      local fields = {}
      for i, instance in ipairs(instances) do
        if instance then
          local list, skipped = fieldsOf(instance)
          fields[i] = { list = list, skipped = skipped }
          for _, e in ipairs(list) do if type(e[2]) == "table" then count(e[2]) end end
        end
      end
      local ids, lastId = {}, 0
      local encode
      local function escape(k) if type(k) == "string" and k:sub(1, 1) == "$" then return "$" .. k end return k end
      local function body(t)
        local list = entriesOf(t)
        local sequence, strings = true, true
        for _, e in ipairs(list) do
          if math.type(e[1]) ~= "integer" or e[1] < 1 or e[1] > #list then sequence = false end
          if type(e[1]) ~= "string" then strings = false end
        end
        local out = {}
        if sequence then
          for _, e in ipairs(list) do out[e[1]] = encode(e[2]) end
        elseif strings then
          for _, e in ipairs(list) do out[escape(e[1])] = encode(e[2]) end
        else
          local entries = {}
          for i, e in ipairs(list) do entries[i] = { encode(e[1]), encode(e[2]) } end
          out = { ["$entries"] = entries }
        end
        if isFrozen(t) then return { ["$frozen"] = out } end
        return out
      end
      function encode(v)
        if type(v) ~= "table" then return v end
        if counts[v] and counts[v] > 1 then
          if ids[v] then return { ["$ref"] = ids[v] } end
          lastId = lastId + 1
          ids[v] = lastId
          return { ["$id"] = lastId, ["$value"] = body(v) }
        end
        return body(v)
      end
      local out = {}
      for i = 1, #instances do
        local f = fields[i]
        local data = {}
        if f then for _, e in ipairs(f.list) do data[e[1]] = encode(e[2]) end end
        out[i] = { data = data, skipped = f and f.skipped or {} }
      end
      return out
    end

    -- The other way, for every coordinator at once (a "$ref" finds its "$id" in any field before it):
    -- `encoded[i]` is the i-th coordinator's data as a snapshot has it, and `changed[i]` names the fields
    -- to set on `instances[i]` (true) or to clear (false).
    local function applyStates(instances, encoded, changed)
      local refs = {}
      local decode
      local function unescape(k) if type(k) == "string" and k:sub(1, 2) == "$$" then return k:sub(2) end return k end
      local function fill(t, body)
        if type(body) ~= "table" then error("snapshot data: expected a table", 0) end
        if body["$entries"] ~= nil then
          for _, e in ipairs(body["$entries"]) do t[decode(e[1])] = decode(e[2]) end
        elseif #body > 0 or next(body) == nil then
          for i = 1, #body do t[i] = decode(body[i]) end
        else
          -- In the order encodeStates wrote them (sorted by the key itself), for "$ref"s to find their "$id".
          local keys = {}
          for k in pairs(body) do keys[#keys + 1] = { unescape(k), k } end
          table.sort(keys, function(a, b) return a[1] < b[1] end)
          for _, k in ipairs(keys) do t[k[1]] = decode(body[k[2]]) end
        end
      end
      local function build(body, id)
        if type(body) == "table" and body["$frozen"] ~= nil then
          local t = {}
          fill(t, body["$frozen"])
          t = M.freeze(t)
          if id then refs[id] = t end
          return t
        end
        local t = {}
        if id then refs[id] = t end
        fill(t, body)
        return t
      end
      function decode(v)
        if type(v) ~= "table" then return v end
        if v["$ref"] ~= nil then
          local t = refs[v["$ref"]]
          if t == nil then error("snapshot data: $ref " .. tostring(v["$ref"]) .. " comes before its $id", 0) end
          return t
        end
        if v["$id"] ~= nil then return build(v["$value"], v["$id"]) end
        return build(v)
      end
      for i = 1, #instances do
        local data = encoded[i] or {}
        local keys = {}
        for k in pairs(data) do keys[#keys + 1] = k end
        table.sort(keys)
        local decoded = {}
        for _, k in ipairs(keys) do decoded[k] = decode(data[k]) end
        local instance = instances[i]
        if instance and changed[i] then
          for k, set in pairs(changed[i]) do rawset(instance, k, set and decoded[k] or nil) end
        end
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
      scan(_G)
      if package then for _, m in next, package.loaded do if type(m) == "table" then scan(m) end end end
      return list
    end

    return M, metaFor, snapshot, definitions, DataMeta, { encode = encodeStates, apply = applyStates }
    """#
}
