-- A screen catalog: every screen of the app listed in one place, each built with its parameters
-- (the sources' ControllersList + Assembly): a text input screen, then a confirmation of that text.
-- Run: ./scripts/coordrun examples/catalog.lua
local flow = require "coordinator"

-- The catalog. A required input is a parameter the screen cannot be built without.
local screens = {
  TextInput = { title = "Write something", outputs = { submit = "value" }, examples = { submit = { "hello" } } },
  TextConfirmation = { title = "Confirm", required = { "text" }, outputs = { "confirm", "edit" },
                       render = function(s) return ("You wrote: %q"):format(s.text) end },
  Done = { inputs = { "text" }, render = function(s) return "Sent: " .. s.text end },
}
for name, spec in pairs(screens) do flow.screen(name, spec) end

local Compose = flow.coordinator "Compose"
function Compose:start()
  local input = self:push("TextInput")
  input.onSubmit = function(text)
    local confirmation = self:push("TextConfirmation", { text = text })
    confirmation.onEdit = function() self:pop() end
    confirmation.onConfirm = function() self:setRoot("Done", { text = text }) end
  end
end

flow.app(Compose)
