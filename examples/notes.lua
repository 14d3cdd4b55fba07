-- The notes app: the new-note screen only sends a signal; the list adds the note; a storage coordinator
-- without screens (a "microservice") saves it to a file.
-- Run: ./scripts/coordrun examples/notes.lua     (NOTES_FILE names the file; default: $TMPDIR/notes.txt)
local flow = require "coordinator"

flow.screen "Notes" {
  inputs = { "notes" },
  outputs = { "new" },
  render = function(screen)
    if #screen.notes == 0 then return "No notes yet." end
    local lines = {}
    for i, note in ipairs(screen.notes) do lines[i] = ("%d. %s"):format(i, note.text) end
    return table.concat(lines, "\n")
  end,
}

flow.screen "NewNote" { title = "New note", outputs = { "cancel", save = "value" }, examples = { save = { "Buy milk" } } }

-- Saves every note it hears about; it has no screens, and takes part in the tree like any coordinator.
-- Under `coordrun --sandbox` a script has no files: the notes are kept in memory instead.
local Storage = flow.coordinator "Storage"
Storage.ui = false -- a service: the lifecycle oracle of `coordrun test` expects no screen from it
function Storage:start()
  -- No file where the scripts have no io (coordrun --sandbox): the notes are kept in memory then.
  self.path = nil
  if rawget(_G, "io") then self.path = os.getenv("NOTES_FILE") or ((os.getenv("TMPDIR") or "/tmp") .. "/notes.txt") end
  self.saved = 0
  self.kept = {}
  self:onSignal("noteCreated", function(note)
    if self.path then
      local file = assert(io.open(self.path, "a"))
      file:write(note.text, "\n")
      file:close()
    else
      self.kept[#self.kept + 1] = note.text
    end
    self.saved = self.saved + 1
    return nil, ("saved %d"):format(self.saved)   -- no change to the payload; a reply to the sender
  end)
end

-- Only builds a note and sends it; it knows neither the list nor the storage.
local NewNote = flow.coordinator "NewNote"
function NewNote:start()
  local screen = self:push("NewNote")
  screen.onSave = function(text)
    local replies = screen:send("noteCreated", { text = text })
    print("storage: " .. table.concat(replies, ", "))
    self:finish()
  end
  screen.onCancel = function() self:finish() end
end

local NotesApp = flow.coordinator "NotesApp"
function NotesApp:start()
  self:run(Storage)
  local list = self:push("Notes", { notes = {} })
  list:onSignal("noteCreated", function(note)
    local notes = list.notes
    notes[#notes + 1] = note
    list.notes = notes
  end)
  list.onNew = function() self:run(NewNote, nil, { modal = true }) end
end

flow.app(NotesApp)

-- What `coordrun explore` compares (docs/Explore.md): every note saved makes a new state, so exploring
-- would never end; here a list of two notes or more counts as one, and the rest of the state as it is.
flow.view(function(state)
  local list = state.window.root.stack[1].inputs
  list.notes = math.min(#list.notes, 2)
  return state
end)
