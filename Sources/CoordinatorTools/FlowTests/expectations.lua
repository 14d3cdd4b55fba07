local recorders = ...
local expect = {}

local function show(v, depth)
  depth = depth or 0
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) ~= "table" or depth > 3 then return tostring(v) end
  local parts, n = {}, #v
  for i = 1, n do parts[#parts + 1] = show(v[i], depth + 1) end
  local keys = {}
  for k in pairs(v) do if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do parts[#parts + 1] = tostring(k) .. " = " .. show(v[k], depth + 1) end
  return "{ " .. table.concat(parts, ", ") .. " }"
end
expect.show = show

local function same(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

-- An expectation's failure: the harness is told its message (a failure, not an error), then it is
-- raised at the test's line (`level` counts from the expectation that calls this).
local function raise(message, level)
  recorders.failing(message)
  error(message, level + 1)
end

local function fail(what, expected, actual)
  raise(("%s: expected %s, got %s"):format(what, show(expected), show(actual)), 3)
end

--- expect.equal(actual, expected [, what]): the two values are equal (tables by their contents).
function expect.equal(actual, expected, what)
  if not same(actual, expected) then fail(what or "value", expected, actual) end
end

--- expect.screen(name [, inputs]): the visible screen is `name`, and has these inputs (those named).
function expect.screen(name, inputs)
  local s = top()
  local actual = s and s.name
  if actual ~= name then fail("visible screen", name, actual or "no screen") end
  for key, value in pairs(inputs or {}) do
    local got = s:input(key)
    if not same(got, value) then fail(("input %s of %s"):format(key, name), value, got) end
  end
end

--- expect.stack { "Bottom", ..., "Top" }: the visible hierarchy, modals and the selected tab included.
function expect.stack(names)
  local actual = stack()
  if not same(actual, names) then fail("stack", names, actual) end
end

--- expect.alert { title = ..., message = ... }: an alert is showing, with this title (and message).
function expect.alert(spec)
  local s = top()
  if not s or s.name ~= "Alert" then fail("alert", spec, s and ("screen " .. s.name) or "no screen") end
  local actual = { title = s:input("title"), message = spec.message ~= nil and s:input("message") or nil }
  if not same(actual, { title = spec.title, message = spec.message }) then fail("alert", spec, actual) end
end

local function titles(bar)
  local list = {}
  for i, tab in ipairs(bar) do list[i] = tab.title end
  return list
end

-- The titles `shown` has (a tab bar, pages: what a recorder gives, nil for none) against `spec`'s, in
-- order, and its selected one when `spec.selected` is given. Called as a tail call, so that it stands
-- in the expectation's frame and a failure names the test's line.
local function expectTitled(what, spec, shown, none)
  local expected = {}
  for i, title in ipairs(spec) do expected[i] = title end
  if not shown then fail(what .. "s", expected, none) end
  if not same(titles(shown), expected) then fail(what .. "s", expected, titles(shown)) end
  if spec.selected ~= nil and spec.selected ~= shown.selected then fail("selected " .. what, spec.selected, shown.selected) end
end

--- expect.invariantFails(name): the next step breaks the invariant `name` (`flow.invariant`): no failure
--- then, but one if it holds after that step. Written before each step that breaks it on the way to
--- something else (the tests `coordrun explore` writes do).
function expect.invariantFails(name)
  if type(name) ~= "string" then raise("expect.invariantFails: expected an invariant's name, got " .. show(name), 2) end
  if not recorders.invariantFails(name) then raise(("expect.invariantFails: no invariant is named %s"):format(show(name)), 2) end
end

--- expect.tabs { "Inbox", "Sent", selected = "Inbox" }: the tab bar showing has these tabs, by title
--- and in order (and this one selected, when `selected` is given).
function expect.tabs(spec) return expectTitled("tab", spec, recorders.tabs(), "no tab bar") end

--- expect.pages { "One", "Two", selected = "One" }: the pages showing have these titles, in order (and
--- this one shown, when `selected` is given).
function expect.pages(spec) return expectTitled("page", spec, recorders.pages(), "no pages") end

--- expect.split { primary = { "List" }, secondary = { "Detail", "More" } }: the split showing has these
--- screen types in the columns given, bottom first.
function expect.split(spec)
  local columns = recorders.split()
  if not columns then fail("split", spec, "no split") end
  local shown = {}
  for column in pairs(spec) do shown[column] = columns[column] or "no such column" end
  if not same(shown, spec) then fail("split", spec, shown) end
end

--- expect.pending("signIn" [, n]): a request of that kind waits for its answer (n of them, when given).
function expect.pending(kind, n)
  local count = #pending(kind)
  if n == nil then
    if count == 0 then fail("pending " .. kind, "a request", "none") end
  elseif count ~= n then fail("pending " .. kind, n, count) end
end

--- expect.storage { onboarded = true }: the app's storage holds these values (the keys given);
--- expect.storage("token", nil): this key holds this value (nil: none).
function expect.storage(spec, value)
  local stored = recorders.storage()
  if type(spec) == "string" then
    if not same(stored[spec], value) then fail("storage." .. spec, value, stored[spec]) end
    return
  end
  for key, expected in pairs(spec) do
    if not same(stored[key], expected) then fail("storage." .. tostring(key), expected, stored[key]) end
  end
end

--- expect.sizeClass("compact"): the window is this wide ("compact" or "regular").
function expect.sizeClass(expected)
  local actual = sizeClass()
  if actual ~= expected then fail("size class", expected, actual) end
end

--- expect.presentation("formSheet"), or expect.presentation { style = "fullScreen", dismissable = false,
--- detent = "medium" }: the top modal is presented so (the fields given; `dismissable`: whether the user
--- can swipe it away; `detent`: a sheet's first).
function expect.presentation(spec)
  local actual = recorders.presentation()
  if type(spec) == "string" then spec = { style = spec } end
  if not actual then fail("presentation", spec, "no modal") end
  local shown = {}
  for key in pairs(spec) do shown[key] = actual[key] end
  if not same(shown, spec) then fail("presentation", spec, shown) end
end

--- expect.badge("Inbox", 3): the tab titled "Inbox" shows this badge (a count or a text; nil: none).
function expect.badge(title, badge)
  local bar = recorders.tabs()
  if not bar then fail("badge of tab " .. show(title), badge, "no tab bar") end
  for _, tab in ipairs(bar) do
    if tab.title == title then
      if not same(tab.badge, badge) then fail("badge of tab " .. show(title), badge, tab.badge) end
      return
    end
  end
  fail("a tab titled " .. show(title), title, titles(bar))
end

local function names(node, out, depth)
  out[#out + 1] = string.rep("  ", depth) .. node.name
  for _, child in ipairs(node.children or {}) do names(child, out, depth + 1) end
  return out
end

--- expect.tree { "App", "  Main", "    CityPicker" }: the running coordinators, depth first, indented
--- two spaces a level.
function expect.tree(expected)
  local t = tree()
  local actual = t and names(t, {}, 0) or {}
  if not same(actual, expected) then fail("coordinator tree", expected, actual) end
end

--- expect.finished(name [, { result = ..., reason = "finished" }]): a coordinator named `name`
--- finished during the test (the last one of that name), with this result and reason.
function expect.finished(name, spec)
  local found
  for _, f in ipairs(recorders.finishes()) do if f.name == name then found = f end end
  if not found then fail("finished coordinator", name, "none of that name finished") end
  if spec and spec.reason ~= nil and spec.reason ~= found.reason then fail(name .. " finish reason", spec.reason, found.reason) end
  if spec and spec.result ~= nil and not same(spec.result, found.result) then fail(name .. " result", spec.result, found.result) end
end

--- expect.events(step, { "push Regions", ... }): running `step` caused these events, in order (each
--- given as the start of the event's description: "push Regions" matches "push Regions#8").
function expect.events(step, expected)
  local events = recorders.events(step)
  local i = 1
  for _, event in ipairs(events) do
    if expected[i] and event:sub(1, #expected[i]) == expected[i] then i = i + 1 end
  end
  if i <= #expected then fail("events", expected, events) end
end

--- expect.fails(step, "part of the message"): running `step` fails with a message containing the text,
--- and the app is exactly as before.
function expect.fails(step, part)
  local before = recorders.picture()
  local ok, err = pcall(step)
  if ok then raise("expected a failure" .. (part and (" containing " .. show(part)) or "") .. ", but it succeeded", 2) end
  local message = tostring(err)
  if part and not message:find(part, 1, true) then fail("failure", "a message containing " .. show(part), message) end
  local after = recorders.picture()
  if after ~= before then raise("the failure changed the app:\n  before: " .. before .. "\n  after:  " .. after, 2) end
end

return expect
