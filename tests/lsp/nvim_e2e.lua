-- End-to-end: Neovim's built-in LSP client (0.7+) against `stoker server` on a starved script.
-- Run by run_nvim_e2e.sh; exits 0 on success, 1 with a message on stderr otherwise.
local stoker = os.getenv("STOKER_BINARY")
local fixture = os.getenv("STOKER_FIXTURE")

local function lsp_code(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end

local function find(buf, code, lnum)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if lsp_code(d) == code and (lnum == nil or d.lnum == lnum) then return d end
  end
end

local function run()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local file = dir .. "/train.py"
  vim.fn.writefile(vim.fn.readfile(fixture), file)
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  assert(vim.bo[buf].filetype == "python", "filetype is " .. vim.bo[buf].filetype)

  local client_id = vim.lsp.start_client({
    name = "stoker",
    cmd = { stoker, "server" },
    root_dir = dir,
    flags = { debounce_text_changes = 0 },
  })
  assert(client_id, "could not start stoker server")
  vim.lsp.buf_attach_client(buf, client_id)

  -- 1. Diagnostics arrive, DL001 on the loader line (0-based line 4).
  assert(vim.wait(15000, function() return find(buf, "DL001", 4) ~= nil end, 20),
    "no DL001 diagnostic on line 5; got " .. vim.inspect(vim.diagnostic.get(buf)))
  local d = find(buf, "DL001", 4)
  assert(d.source == "stoker", "source is " .. tostring(d.source))
  assert(d.severity == vim.diagnostic.severity.WARN, "severity " .. tostring(d.severity))
  -- The LSP form of the diagnostic, as Neovim's own code action request builds it.
  local lsp_diag
  for _, ld in ipairs(vim.lsp.diagnostic.get_line_diagnostics(buf, 4)) do
    if ld.code == "DL001" then lsp_diag = ld end
  end
  assert(lsp_diag and lsp_diag.range, "no LSP form of the diagnostic")
  assert(lsp_diag.data and lsp_diag.data.fix, "no fix in the diagnostic's data")
  local has_docs = os.getenv("STOKER_HAS_RULE_DOCS") == "1"
  if has_docs then
    assert(lsp_diag.codeDescription and lsp_diag.codeDescription.href:find("DL001", 1, true), "no rule link")
  end

  -- 2. Hover over it shows the rule.
  local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = lsp_diag.range.start,
  }, 10000)
  local value = hover and hover[client_id] and hover[client_id].result and hover[client_id].result.contents.value
  assert(value and value:find("**DL001**", 1, true) and value:find(d.message, 1, true), "hover: " .. vim.inspect(hover))
  if has_docs then
    assert(value:find("synchronous-data-loader", 1, true), "hover lacks the rule document: " .. value)
  end

  -- 3. The code actions for it: apply the fix (not the suppression) and check the buffer.
  local results = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = lsp_diag.range,
    context = { diagnostics = { lsp_diag }, only = { "quickfix" } },
  }, 10000)
  local actions = results and results[client_id] and results[client_id].result or {}
  local fix, suppress
  for _, a in ipairs(actions) do
    if a.title:find("^Suppress") then suppress = a else fix = fix or a end
  end
  assert(fix and suppress, "code actions: " .. vim.inspect(actions))
  local function loader_line()
    for _, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
      if l:find("^loader = ") then return l end
    end
  end
  local before = loader_line()
  assert(not before:find("num_workers", 1, true), "fixture already fixed")
  vim.lsp.util.apply_workspace_edit(fix.edit, "utf-16")
  local after = loader_line()
  assert(after and after:find("num_workers=", 1, true), "fix did not add num_workers: " .. tostring(after))

  -- 4. Neovim sends the change; the republished diagnostics no longer have DL001.
  assert(vim.wait(15000, function() return find(buf, "DL001") == nil end, 20),
    "DL001 still reported after the fix: " .. vim.inspect(vim.diagnostic.get(buf)))

  -- 5. The suppression action on another finding adds the comment at the end of its line.
  local other = vim.diagnostic.get(buf)[1]
  assert(other, "expected other findings to remain")
  local other_lsp = vim.lsp.diagnostic.get_line_diagnostics(buf, other.lnum)[1]
  local res = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = other_lsp.range,
    context = { diagnostics = { other_lsp }, only = { "quickfix" } },
  }, 10000)
  local sup
  for _, a in ipairs(res[client_id].result or {}) do
    if a.title:find("^Suppress") then sup = a end
  end
  assert(sup, "no suppression action for " .. tostring(lsp_code(other)))
  vim.lsp.util.apply_workspace_edit(sup.edit, "utf-16")
  local line = vim.api.nvim_buf_get_lines(buf, other.lnum, other.lnum + 1, false)[1]
  local want = "# stoker: ignore[" .. lsp_code(other) .. "]"
  assert(line:sub(-#want) == want, "suppression comment missing: " .. line)

  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
end

local ok, err = pcall(run)
if ok then
  io.stdout:write("nvim e2e: OK\n")
  vim.cmd("qall!")
else
  io.stderr:write("nvim e2e: FAIL: " .. tostring(err) .. "\n")
  vim.cmd("cquit 1")
end
