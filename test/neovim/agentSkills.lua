-- Drives the server from Neovim's built-in LSP client on the Agent Skills fixture, headless: a diagnostic in
-- CLAUDE.md, completion after /, and a rename that moves a skill's folder. Writes a JSON result for
-- test/neovim/agentSkills.test.ts. Every wait is bounded.
local workspace = os.getenv("SKILL_LSP_WORKSPACE")
local result = { steps = {} }
vim.o.swapfile = false

local function record(name, ok, details)
  table.insert(result.steps, { name = name, ok = ok, details = details or vim.empty_dict() })
end

local function finish()
  local file = io.open(os.getenv("SKILL_LSP_RESULT"), "w")
  file:write(vim.fn.json_encode(result))
  file:close()
  vim.cmd("qall!")
end

local timer = vim.loop.new_timer()
timer:start(50000, 0, vim.schedule_wrap(function()
  record("watchdog", false)
  finish()
end))

local client_id = vim.lsp.start_client({
  name = "skill-lsp",
  cmd = { os.getenv("SKILL_LSP_NODE"), os.getenv("SKILL_LSP_SERVER"), "--stdio" },
  root_dir = workspace,
  workspace_folders = { { uri = vim.uri_from_fname(workspace), name = "fixture" } },
})

vim.cmd("edit " .. workspace .. "/CLAUDE.md")
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, client_id)

-- A diagnostic: the near miss /pdff.
local seen = vim.wait(30000, function()
  for _, diagnostic in ipairs(vim.diagnostic.get(buf)) do
    if diagnostic.message:find("did you mean /pdf", 1, true) then return true end
  end
  return false
end, 100)
local messages = {}
for _, diagnostic in ipairs(vim.diagnostic.get(buf)) do table.insert(messages, diagnostic.message) end
record("diagnostic", seen, { messages = messages })

-- Completion after / on a new last line.
local last = vim.api.nvim_buf_line_count(buf)
vim.api.nvim_buf_set_lines(buf, last, last, false, { "Next: /d" })
local responses = vim.lsp.buf_request_sync(buf, "textDocument/completion", {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  position = { line = last, character = 8 },
}, 10000) or {}
local labels = {}
for _, response in pairs(responses) do
  local items = response.result and (response.result.items or response.result) or {}
  for _, item in ipairs(items) do table.insert(labels, item.label) end
end
record("completion", vim.tbl_contains(labels, "/docx"), { labels = labels })
vim.api.nvim_buf_set_lines(buf, last, last + 1, false, {})

-- Rename /docx to word: one workspace edit, applied, saved.
local line, col
for index, text in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
  local at = text:find("/docx", 1, true)
  if at then line, col = index - 1, at break end
end
local renamed = vim.lsp.buf_request_sync(buf, "textDocument/rename", {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  position = { line = line, character = col },
  newName = "word",
}, 10000) or {}
-- Neovim 0.7's vim.lsp.util.rename opens and writes the old name as a buffer, which fails for a folder
-- ("E502: is a directory"); 0.10's moves folders. So on 0.7 the edit's folder move is done with
-- vim.loop.fs_rename, in the edit's order, and everything else by Neovim's own functions.
local function apply(edit)
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == "rename" and vim.fn.isdirectory(vim.uri_to_fname(change.oldUri)) == 1 and vim.fn.has("nvim-0.10") == 0 then
      local ok, err = vim.loop.fs_rename(vim.uri_to_fname(change.oldUri), vim.uri_to_fname(change.newUri))
      if not ok then error(err) end
      result.folder_moved_by = "vim.loop.fs_rename"
    else
      vim.lsp.util.apply_workspace_edit({ documentChanges = { change } }, "utf-16")
    end
  end
end

local applied, failure = false, nil
for _, response in pairs(renamed) do
  if response.result then
    applied, failure = pcall(apply, response.result)
  elseif response.err then
    failure = response.err.message
  end
end
pcall(vim.cmd, "silent! wall")
record("rename", applied, { error = failure and tostring(failure) or vim.NIL })

vim.lsp.stop_client(client_id)
vim.wait(2000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
finish()
