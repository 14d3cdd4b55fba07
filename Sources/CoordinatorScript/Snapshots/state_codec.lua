local M, P = ...
local next, pairs, ipairs, type = P.next, P.pairs, P.ipairs, P.type
local getmetatable, rawset, error, tostring = P.getmetatable, P.rawset, P.error, P.tostring
local sort, mathtype = P.sort, P.mathtype

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
  sort(list, function(a, b)
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
  sort(list, function(a, b) return a[1] < b[1] end)
  sort(skipped)
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
      if mathtype(e[1]) ~= "integer" or e[1] < 1 or e[1] > #list then sequence = false end
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
  -- A document written by hand or altered: each mistake names its place, as a JSON path.
  local function bad(path, what) error("snapshot: " .. path .. ": " .. what, 0) end
  local function unescape(k) if type(k) == "string" and k:sub(1, 2) == "$$" then return k:sub(2) end return k end
  local function fill(t, body, path)
    if type(body) ~= "table" then bad(path, "expected an object or an array") end
    local entries = body["$entries"]
    if entries ~= nil then
      if type(entries) ~= "table" then bad(path .. ".$entries", "expected a list of [key, value] pairs") end
      for i, e in ipairs(entries) do
        local at = path .. ".$entries[" .. i .. "]"
        if type(e) ~= "table" or e[1] == nil or e[2] == nil then bad(at, "expected [key, value]") end
        local k = decode(e[1], at .. "[1]")
        if not isKey(k) or k ~= k then bad(at .. "[1]", "a key is a string, a number (not NaN) or a boolean") end
        t[k] = decode(e[2], at .. "[2]")
      end
    elseif #body > 0 or next(body) == nil then
      for i = 1, #body do t[i] = decode(body[i], path .. "[" .. i .. "]") end
    else
      -- In the order encodeStates wrote them (sorted by the key itself), for "$ref"s to find their "$id".
      local keys = {}
      for k in pairs(body) do keys[#keys + 1] = { unescape(k), k } end
      sort(keys, function(a, b) return a[1] < b[1] end)
      for _, k in ipairs(keys) do t[k[1]] = decode(body[k[2]], path .. "." .. k[2]) end
    end
  end
  local function build(body, id, path)
    if type(body) == "table" and body["$frozen"] ~= nil then
      local t = {}
      fill(t, body["$frozen"], path .. ".$frozen")
      t = M.freeze(t)
      if id then refs[id] = t end
      return t
    end
    local t = {}
    if id then refs[id] = t end
    fill(t, body, path)
    return t
  end
  function decode(v, path)
    if type(v) ~= "table" then return v end
    if v["$ref"] ~= nil then
      local t = refs[v["$ref"]]
      if t == nil then bad(path, "$ref " .. tostring(v["$ref"]) .. " comes before its $id") end
      return t
    end
    if v["$id"] ~= nil then
      if refs[v["$id"]] ~= nil then bad(path, "$id " .. tostring(v["$id"]) .. " is written twice") end
      return build(v["$value"], v["$id"], path .. ".$value")
    end
    return build(v, nil, path)
  end
  for i = 1, #instances do
    local data = encoded[i] or {}
    if type(data) ~= "table" then bad("coordinators[" .. i .. "].data", "expected an object") end
    local keys = {}
    for k in pairs(data) do keys[#keys + 1] = k end
    sort(keys)
    local decoded = {}
    for _, k in ipairs(keys) do decoded[k] = decode(data[k], "coordinators[" .. i .. "].data." .. k) end
    local instance = instances[i]
    if instance and changed[i] then
      for k, set in pairs(changed[i]) do rawset(instance, k, set and decoded[k] or nil) end
    end
  end
end

return { encode = encodeStates, apply = applyStates }
