-- Drives the real skill-lsp server from Neovim's built-in LSP client, headless, and writes what happened to a
-- JSON file for test/neovim/neovim.test.ts to assert on.
--
--   SKILL_LSP_WORKSPACE=/tmp/ws SKILL_LSP_SERVER=dist/server.js SKILL_LSP_RESULT=/tmp/result.json \
--     nvim --headless --clean -u test/neovim/init.lua
--
-- Written for Neovim 0.7.2 (Debian 12), where there is no vim.lsp.start: the client is started with
-- vim.lsp.start_client and buffers are attached with vim.lsp.buf_attach_client from a BufReadPost autocommand,
-- the way nvim-lspconfig did it in that era. On 0.8+ vim.lsp.start is used instead. Every wait is a bounded
-- vim.wait, a watchdog timer ends the run whatever happens, and the exit code is 0 only when every checked step
-- passed ("omnifunc" and "after-rename" are recorded for the TypeScript side but never fail the run).

local env = {
  workspace = os.getenv("SKILL_LSP_WORKSPACE"),
  server = os.getenv("SKILL_LSP_SERVER"),
  result = os.getenv("SKILL_LSP_RESULT"),
  node = os.getenv("SKILL_LSP_NODE") or "node",
  -- The whole run's bound, in ms; the TypeScript side kills the process a little later still.
  budget = tonumber(os.getenv("SKILL_LSP_BUDGET_MS") or "") or 60000,
}

local uv = vim.loop

-- No swap files in the temporary workspace, no "-- INSERT --" noise on stdout.
vim.o.swapfile = false
vim.o.showmode = false
local started = uv.hrtime()
local v = vim.version()

local result = {
  nvim = string.format("%d.%d.%d", v.major, v.minor, v.patch),
  api = {
    ["vim.lsp.start"] = vim.lsp.start ~= nil,
    ["vim.lsp.start_client"] = vim.lsp.start_client ~= nil,
    ["vim.lsp.buf_attach_client"] = vim.lsp.buf_attach_client ~= nil,
    ["vim.lsp.buf_request_sync"] = vim.lsp.buf_request_sync ~= nil,
    ["vim.lsp.util.apply_workspace_edit"] = vim.lsp.util.apply_workspace_edit ~= nil,
    ["vim.lsp.util.rename"] = vim.lsp.util.rename ~= nil,
    ["vim.diagnostic.get"] = vim.diagnostic ~= nil and vim.diagnostic.get ~= nil,
    ["vim.wait"] = vim.wait ~= nil,
    ["nvim_create_autocmd"] = vim.api.nvim_create_autocmd ~= nil,
  },
  -- Client capabilities this Neovim sends that the server's behaviour depends on.
  capabilities = {},
  steps = {},
  messages = {},
  errors = {},
}

local function elapsed_ms()
  return math.floor((uv.hrtime() - started) / 1e6)
end

local function write_result()
  result.elapsed_ms = elapsed_ms()
  local file = io.open(env.result, "w")
  if file then
    file:write(vim.fn.json_encode(result))
    file:close()
  end
end

local finished = false
local function finish(code)
  if finished then
    return
  end
  finished = true
  result.exit_code = code
  write_result()
  if code == 0 then
    vim.cmd("qall!")
  else
    vim.cmd("cquit " .. code)
  end
end

-- The watchdog: whatever hangs, the run ends. It fires from libuv (a fast context), so it writes the file with
-- plain Lua and leaves with os.exit rather than an Ex command.
local watchdog = uv.new_timer()
watchdog:start(env.budget, 0, function()
  if finished then
    return
  end
  finished = true
  result.exit_code = 3
  table.insert(result.errors, "watchdog: the run exceeded " .. env.budget .. " ms")
  result.elapsed_ms = elapsed_ms()
  local ok, text = pcall(vim.json.encode, result)
  local file = io.open(env.result, "w")
  if file then
    file:write(ok and text or '{"exit_code":3,"errors":["watchdog"]}')
    file:close()
  end
  os.exit(3)
end)

if not (env.workspace and env.server and env.result) then
  io.stderr:write("init.lua: set SKILL_LSP_WORKSPACE, SKILL_LSP_SERVER and SKILL_LSP_RESULT\n")
  vim.cmd("cquit 2")
end

--- Runs one step: `fn(step)` fills step.details and returns normally on success, errors on failure.
local function step(name, fn)
  local record = { name = name, ok = false, details = {} }
  table.insert(result.steps, record)
  local t0 = uv.hrtime()
  local ok, err = xpcall(function()
    fn(record.details)
  end, debug.traceback)
  record.ok = ok
  record.ms = math.floor((uv.hrtime() - t0) / 1e6)
  if not ok then
    record.error = tostring(err)
  end
  write_result()
  return ok
end

local function check(condition, message)
  if not condition then
    error(message, 2)
  end
end

local function path(relative)
  return env.workspace .. "/" .. relative
end

local function lines_of(bufnr)
  return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
end

--- The 0-based line and byte column of the first `needle` in the buffer.
local function find(bufnr, needle)
  for index, line in ipairs(lines_of(bufnr)) do
    local col = line:find(needle, 1, true)
    if col then
      return index - 1, col - 1
    end
  end
  error(needle .. " not found in buffer " .. bufnr, 2)
end

--- The one client's answer from buf_request_sync, or an error with what went wrong.
local function request(bufnr, method, params, timeout)
  local responses, err = vim.lsp.buf_request_sync(bufnr, method, params, timeout or 5000)
  check(responses, method .. ": " .. tostring(err or "no response"))
  for _, response in pairs(responses) do
    if response.err or response.error then
      local e = response.err or response.error
      error(method .. " failed: " .. (type(e) == "table" and tostring(e.message) or tostring(e)), 2)
    end
    return response.result
  end
  error(method .. ": no client answered", 2)
end

--- The items of a completion answer (a CompletionList or an item array); vim.lsp.util's helper moved in 0.10.
local function items_of(answer)
  if type(answer) == "table" and answer.items then
    return answer.items
  end
  return answer or {}
end

local function diagnostics_of(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out, {
      message = d.message,
      lnum = d.lnum,
      col = d.col,
      end_lnum = d.end_lnum,
      end_col = d.end_col,
      severity = d.severity,
      code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or vim.NIL,
      source = d.source or vim.NIL,
    })
  end
  return out
end

local function unknown_messages(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.message:find("unknown", 1, true) then
      table.insert(out, d.message)
    end
  end
  return out
end

-- The client ---------------------------------------------------------------------------------------------------

local client_id
local status -- the last skill/status notification
local server_exit
local attached = {} -- bufnr → true

local config = {
  name = "skill-lsp",
  cmd = { env.node, env.server, "--stdio" },
  root_dir = env.workspace,
  workspace_folders = { { uri = vim.uri_from_fname(env.workspace), name = "workspace" } },
  handlers = {
    ["skill/status"] = function(_, params)
      status = params
    end,
    ["window/logMessage"] = function(_, params)
      table.insert(result.messages, params.message)
    end,
    ["window/showMessage"] = function(_, params)
      table.insert(result.messages, "showMessage: " .. params.message)
    end,
  },
  before_init = function(params)
    local caps = params.capabilities
    result.capabilities = {
      pull_diagnostics = caps.textDocument and caps.textDocument.diagnostic ~= nil or false,
      snippet_support = vim.tbl_get and vim.tbl_get(caps, "textDocument", "completion", "completionItem", "snippetSupport") or false,
      document_changes = (caps.workspace and caps.workspace.workspaceEdit and caps.workspace.workspaceEdit.documentChanges) or false,
      resource_operations = (caps.workspace and caps.workspace.workspaceEdit and caps.workspace.workspaceEdit.resourceOperations) or {},
      watched_files = (caps.workspace and caps.workspace.didChangeWatchedFiles) ~= nil,
      file_operations = (caps.workspace and caps.workspace.fileOperations) ~= nil,
      position_encodings = (caps.general and caps.general.positionEncodings) or { "utf-16 (implied)" },
    }
  end,
  on_exit = function(code, signal)
    server_exit = { code = code, signal = signal }
  end,
  on_error = function(code, err)
    table.insert(result.errors, "client error " .. tostring(code) .. ": " .. vim.inspect(err))
  end,
}

local function attach(bufnr)
  if attached[bufnr] then
    return
  end
  attached[bufnr] = true
  vim.bo[bufnr].filetype = "skill"
  if vim.lsp.start then
    -- 0.8+: reuses the running client (same name and root_dir) and attaches the current buffer.
    vim.api.nvim_buf_call(bufnr, function()
      client_id = vim.lsp.start(config)
    end)
  else
    vim.lsp.buf_attach_client(bufnr, client_id)
  end
end

local function on_skill_buffer(args)
  local bufnr = type(args) == "table" and args.buf or tonumber(vim.fn.expand("<abuf>"))
  if client_id or vim.lsp.start then
    attach(bufnr)
  end
end
_G.__skill_lsp_on_buffer = on_skill_buffer

if vim.api.nvim_create_autocmd then
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, { pattern = "*.skill.md", callback = on_skill_buffer })
else
  vim.cmd([[autocmd BufReadPost,BufNewFile *.skill.md lua _G.__skill_lsp_on_buffer()]])
end

local function edit(relative)
  vim.cmd("edit " .. vim.fn.fnameescape(path(relative)))
  local bufnr = vim.api.nvim_get_current_buf()
  check(attached[bufnr], "buffer of " .. relative .. " is not attached")
  return bufnr
end

-- The steps ------------------------------------------------------------------------------------------------------

local function main()
  local started_ok = step("start", function(d)
    if vim.lsp.start then
      -- Starts with the first buffer; open one now so there is a client to wait on.
      vim.cmd("edit " .. vim.fn.fnameescape(path("skills/builtin/check-schedule.skill.md")))
    else
      client_id = vim.lsp.start_client(config)
    end
    check(client_id, "the client did not start")
    local ready = vim.wait(20000, function()
      return (status ~= nil and status.indexing == false) or server_exit ~= nil
    end, 20)
    d.status = status or vim.NIL
    check(server_exit == nil, "the server exited at start: " .. vim.inspect(server_exit))
    check(ready, "no skill/status with indexing=false within 20 s")
    local client = vim.lsp.get_client_by_id(client_id)
    d.offset_encoding = client and client.offset_encoding or vim.NIL
    d.completion_triggers = client and client.server_capabilities.completionProvider
        and client.server_capabilities.completionProvider.triggerCharacters
      or {}
  end)

  if not started_ok then
    -- Nothing else can pass without a running, indexed server: stop here rather than wait out every step.
    if client_id then
      vim.lsp.stop_client(client_id, true)
    end
    watchdog:stop()
    finish(1)
    return
  end

  local meeting -- meeting-prep's buffer, edited for completion then reverted
  local meeting_lines -- its line count before the edits
  local ok = step("completion", function(d)
    meeting = edit("skills/work/meeting-prep.skill.md")
    local count = vim.api.nvim_buf_line_count(meeting)
    meeting_lines = count
    vim.api.nvim_buf_set_lines(meeting, count, count, false, { "", "Also use @" })
    local last = vim.api.nvim_buf_line_count(meeting)
    -- What Neovim's omnifunc sends (0.7.2: position only, no CompletionContext). The position is right after
    -- the `@`, where the cursor is in insert mode (in normal mode it cannot go past the last character).
    local params = {
      textDocument = vim.lsp.util.make_text_document_params(meeting),
      position = { line = last - 1, character = #"Also use @" },
    }
    local list = request(meeting, "textDocument/completion", params)
    check(list, "textDocument/completion answered null")
    local items = items_of(list)
    d.labels = {}
    d.kinds = {}
    for _, item in ipairs(items) do
      table.insert(d.labels, item.label)
      d.kinds[item.label] = vim.lsp.protocol.CompletionItemKind[item.kind] or tostring(item.kind)
    end
    d.is_incomplete = type(list) == "table" and list.isIncomplete or false
    local first = items[1] or {}
    d.first_item = {
      label = first.label,
      filterText = first.filterText or vim.NIL,
      textEdit = first.textEdit or vim.NIL,
      insertTextFormat = first.insertTextFormat or vim.NIL,
    }
    -- The same request with the trigger character, as a client with contextSupport sends it.
    params.context = { triggerKind = 2, triggerCharacter = "@" }
    local triggered = items_of(request(meeting, "textDocument/completion", params))
    d.triggered_count = #triggered
    local resolved = request(meeting, "completionItem/resolve", items[1])
    local doc = resolved and resolved.documentation
    d.resolved_documentation = type(doc) == "table" and doc.value or doc or vim.NIL
  end)

  if ok then
    -- Completion through 'omnifunc' the way a user gets it: <C-x><C-o> in insert mode. Not pass/fail (see README):
    -- it records what the completion popup would insert.
    step("omnifunc", function(d)
      local function try(typed)
        vim.api.nvim_buf_set_lines(meeting, -2, -1, false, { typed })
        local last = vim.api.nvim_buf_line_count(meeting)
        vim.api.nvim_win_set_cursor(0, { last, #typed })
        vim.bo[meeting].omnifunc = "v:lua.vim.lsp.omnifunc"
        vim.o.completeopt = "menuone,noinsert,noselect"
        local shown
        -- Insert mode at the end of the line, ask for omni completion, then wait (inside insert mode) until the
        -- asynchronous answer has filled the popup, take the first entry with <C-n> and leave insert mode.
        _G.__skill_lsp_popup = function()
          vim.wait(1500, function()
            return vim.fn.pumvisible() == 1
          end, 10)
          local info = vim.fn.complete_info({ "items", "mode" })
          shown = {}
          for _, item in ipairs(info.items or {}) do
            table.insert(shown, item.word)
          end
          return ""
        end
        local keys = vim.api.nvim_replace_termcodes("A<C-x><C-o><C-r>=v:lua.__skill_lsp_popup()<CR><C-n><Esc>", true, false, true)
        vim.api.nvim_feedkeys(keys, "xt", false)
        local line = vim.api.nvim_buf_get_lines(meeting, last - 1, last, false)[1]
        return { typed = typed, popup = shown or {}, line_after_first_entry = line }
      end
      d.after_at = try("Also use @")
      d.after_prefix = try("Also use @sea")
    end)
  end

  if meeting then
    -- Back to the file's text, so the rename below works on the examples as shipped. Not with :edit!: on 0.7.2
    -- reloading an attached buffer sends didClose and then no didOpen (the buffer counts as unloaded inside
    -- on_reload), so the server would never hear of this buffer again.
    vim.api.nvim_buf_set_lines(meeting, meeting_lines, -1, false, {})
    vim.bo[meeting].modified = false
  end

  step("diagnostics", function(d)
    local triage = edit("skills/work/triage-inbox.skill.md")
    d.before = diagnostics_of(triage)
    local count = vim.api.nvim_buf_line_count(triage)
    vim.api.nvim_buf_set_lines(triage, count, count, false, { "Then @weekly-review." })
    local appeared = vim.wait(5000, function()
      return #unknown_messages(triage) > 0
    end, 20)
    d.diagnostics = diagnostics_of(triage)
    d.added_line = count -- 0-based line of the appended text
    check(appeared, "no diagnostic containing 'unknown' within 5 s")
    -- Removing the line clears it again (push diagnostics with an empty list).
    vim.api.nvim_buf_set_lines(triage, count, count + 1, false, {})
    local cleared = vim.wait(5000, function()
      return #unknown_messages(triage) == 0
    end, 20)
    d.cleared = cleared
    check(cleared, "the diagnostic did not clear after the line was removed")
    vim.bo[triage].modified = false
  end)

  local renamed = step("rename", function(d)
    local search = edit("skills/builtin/search-info.skill.md")
    local line, col = find(search, "@fetch-file")
    vim.api.nvim_win_set_cursor(0, { line + 1, col + 3 })
    local params = vim.lsp.util.make_position_params(0, "utf-16")
    local prepared = request(search, "textDocument/prepareRename", params)
    d.prepared = prepared or vim.NIL
    params.newName = "get-file"
    local edit_ = request(search, "textDocument/rename", params)
    check(edit_, "textDocument/rename answered null")
    d.document_changes = {}
    for _, change in ipairs(edit_.documentChanges or {}) do
      if change.kind then
        table.insert(d.document_changes, { kind = change.kind, oldUri = change.oldUri, newUri = change.newUri })
      else
        table.insert(d.document_changes, {
          uri = change.textDocument.uri,
          version = change.textDocument.version == nil and vim.NIL or change.textDocument.version,
          edits = #change.edits,
        })
      end
    end
    d.has_changes_map = edit_.changes ~= nil
    d.buffer_version = vim.lsp.util.buf_versions and vim.lsp.util.buf_versions[search] or vim.NIL

    vim.lsp.util.apply_workspace_edit(edit_, "utf-16")
    d.buffers_after_apply = {}
    for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
      local name = vim.api.nvim_buf_get_name(bufnr)
      if name:find(env.workspace, 1, true) == 1 and vim.api.nvim_buf_is_loaded(bufnr) then
        table.insert(d.buffers_after_apply, {
          name = name:sub(#env.workspace + 2),
          modified = vim.bo[bufnr].modified,
          attached = attached[bufnr] == true,
        })
      end
    end
    vim.cmd("wall")
    d.new_file_exists = uv.fs_stat(path("skills/builtin/get-file.skill.md")) ~= nil
    d.old_file_exists = uv.fs_stat(path("skills/builtin/fetch-file.skill.md")) ~= nil
    check(d.new_file_exists and not d.old_file_exists, "the skill file was not renamed on disk")
  end)

  -- After the rename, what does the server think? Neovim 0.7.2 sends no workspace/didRenameFiles and no
  -- workspace/didChangeWatchedFiles, so the server learns of get-file.skill.md only when a buffer opens it.
  step("after-rename", function(d)
    check(renamed, "skipped: the rename failed")
    local search = vim.fn.bufnr(path("skills/builtin/search-info.skill.md"))
    local rewritten = { "skills/builtin/search-info.skill.md", "skills/home/plan-trip.skill.md", "skills/work/meeting-prep.skill.md" }
    -- Neovim debounces didChange (150 ms) but sends the old buffer's didClose at once, so the rewritten files
    -- may report @get-file as unknown for a moment, until the server finds the moved file beside the closed one.
    -- Wait (bounded) for that to settle; the test then checks that nothing stale is left.
    vim.wait(5000, function()
      for _, relative in ipairs(rewritten) do
        local messages = table.concat(unknown_messages(vim.fn.bufnr(path(relative))), "\n")
        if messages:find("@get-file", 1, true) then
          return false
        end
      end
      return true
    end, 20)
    d.unknown_before_opening_new_file = {}
    for _, relative in ipairs(rewritten) do
      d.unknown_before_opening_new_file[relative] = unknown_messages(vim.fn.bufnr(path(relative)))
    end
    d.search_info_before_opening_new_file = unknown_messages(search)
    edit("skills/builtin/get-file.skill.md")
    d.cleared_after_opening_new_file = vim.wait(5000, function()
      for _, relative in ipairs(rewritten) do
        if #unknown_messages(vim.fn.bufnr(path(relative))) > 0 then
          return false
        end
      end
      return true
    end, 20)
    d.unknown_after_opening_new_file = {}
    for _, relative in ipairs(rewritten) do
      d.unknown_after_opening_new_file[relative] = unknown_messages(vim.fn.bufnr(path(relative)))
    end
  end)

  step("shutdown", function(d)
    vim.lsp.stop_client(client_id)
    local exited = vim.wait(5000, function()
      return server_exit ~= nil
    end, 20)
    d.exit = server_exit or vim.NIL
    check(exited, "the server did not exit within 5 s of shutdown")
    check(server_exit.code == 0, "the server exited with code " .. tostring(server_exit.code))
  end)

  local failed = 0
  for _, s in ipairs(result.steps) do
    -- omnifunc and after-rename are observations: recorded, reported, never fatal.
    if not s.ok and s.name ~= "omnifunc" and s.name ~= "after-rename" then
      failed = failed + 1
    end
  end
  watchdog:stop()
  finish(failed == 0 and 0 or 1)
end

local function guarded_main()
  local ok, err = xpcall(main, debug.traceback)
  if not ok then
    table.insert(result.errors, tostring(err))
    finish(1)
  end
end

if vim.v.vim_did_enter == 1 then
  guarded_main()
elseif vim.api.nvim_create_autocmd then
  -- nested: the :edit commands inside must fire BufReadPost (which attaches the buffer).
  vim.api.nvim_create_autocmd("VimEnter", { once = true, nested = true, callback = guarded_main })
else
  _G.__skill_lsp_main = guarded_main
  vim.cmd([[autocmd VimEnter * ++once ++nested lua _G.__skill_lsp_main()]])
end
