-- The app: a list of notes and a note's page. Run it: coordrun app.lua
local flow = require "coordinator"

flow.screen "Notes" {
  title = "Notes",
  inputs = { "notes" },
  outputs = { open = { from = "notes", label = "title" }, "add" },
  render = function(screen) return #screen.notes .. " notes" end,
}

flow.screen "Note" {
  inputs = { "note" },
  outputs = { "delete" },
  render = function(screen) return screen.note.title .. "\n" .. screen.note.text end,
}

local App = flow.coordinator "App"

function App:start()
  self.notes = { { title = "Groceries", text = "milk, bread" }, { title = "Ideas", text = "a flow per screen" } }
  local list = self:push("Notes", { notes = self.notes })
  list.onOpen = function(note)
    local page = self:push("Note", { note = note })
    page.onDelete = function()
      for i, n in ipairs(self.notes) do if n.title == note.title then table.remove(self.notes, i) break end end
      list.notes = self.notes
      self:pop()
    end
  end
  list.onAdd = function()
    self.notes[#self.notes + 1] = { title = "Note " .. (#self.notes + 1), text = "" }
    list.notes = self.notes
  end
end

flow.app(App)
