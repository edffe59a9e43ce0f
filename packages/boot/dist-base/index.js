// src/audit-log.ts
import { closeSync, createWriteStream, mkdirSync, openSync } from "fs";
import { dirname } from "path";
function createAuditLog(options) {
  let seq = 0;
  let stream;
  let streamError;
  let callbackFailed = false;
  if (options.file) {
    mkdirSync(dirname(options.file), { recursive: true, mode: 448 });
    closeSync(openSync(options.file, "a", 384));
    stream = createWriteStream(options.file, { flags: "a", mode: 384 });
    stream.on("error", (error) => {
      streamError ??= error;
    });
  }
  const enabled = stream !== void 0 || options.onAudit !== void 0;
  return {
    enabled,
    emit(type, fields = {}) {
      if (!enabled) return;
      const event = { type, at: (/* @__PURE__ */ new Date()).toISOString(), seq: ++seq, ...fields };
      if (options.onAudit) {
        try {
          options.onAudit(event);
        } catch (error) {
          if (!callbackFailed) {
            callbackFailed = true;
            process.stderr.write(
              `toolhost: the onAudit callback threw (further failures are not reported): ${String(error)}
`
            );
          }
        }
      }
      if (stream && !streamError) stream.write(`${JSON.stringify(event)}
`);
    },
    async close() {
      if (!stream) return;
      const current = stream;
      stream = void 0;
      await new Promise((resolve5) => current.end(resolve5));
      if (streamError) throw streamError;
    }
  };
}

// src/close-names.ts
import { closeNames } from "@toolhost/contracts";

// src/create-host.ts
import { setMaxListeners as setMaxListeners2 } from "events";
import { mkdirSync as mkdirSync5, readdirSync as readdirSync2 } from "fs";
import { dirname as dirname2, join as join8, resolve as resolve4 } from "path";
import {
  createCodeIndexTool,
  createDiscoveryTools,
  createFileTools,
  createSessionTools,
  createShellTools,
  createStructuredEditTools,
  createSubagentTools,
  createWebFetchTool
} from "@toolhost/builtins";
import { createCapabilityProxy, MCP_OAUTH_DIR_NAME } from "@toolhost/capability-proxy";
import {
  createToolRegistry,
  defineTool as defineTool2,
  errorMessage as errorMessage5,
  isObject,
  sharedArgumentValidator,
  ToolhostError as ToolhostError17
} from "@toolhost/contracts";
import { createJobManager as createJobManager2, normalizeSandboxOptions } from "@toolhost/jobs";

// src/create-session.ts
import { setMaxListeners } from "events";
import { join as join2 } from "path";
import {
  beginGoalRound,
  parseSessionStateSnapshot,
  restoredGoalState
} from "@toolhost/builtins";
import {
  createResultStore
} from "@toolhost/capability-proxy";
import {
  ToolhostError as ToolhostError9
} from "@toolhost/contracts";
import {
  createJobManager
} from "@toolhost/jobs";
import { createObservationStore } from "@toolhost/read-evidence";

// src/capability-refusal.ts
import { isErrorCode as isErrorCode2, ToolhostError as ToolhostError2 } from "@toolhost/contracts";

// src/decide-permission.ts
function sandboxDenial(tool, sandbox) {
  if (sandbox !== "read_only" || tool.category === "shell" || tool.sessionScoped === true) return void 0;
  const writes = tool.category === "write" || tool.group === "editing_builtins" || tool.annotations.readOnly === false || tool.annotations.destructive === true;
  if (!writes) return void 0;
  return {
    type: "deny",
    source: "sandbox",
    code: "PERMISSION_DENIED",
    reason: `"${tool.name}" can modify files or state, which this run does not allow (sandbox read_only)`
  };
}
var PLAN_REFUSED_NAMES = /* @__PURE__ */ new Set(["present"]);
function planDenial(tool) {
  if (tool.category === "shell" || tool.name.startsWith("mcp_connect__")) return void 0;
  const writes = PLAN_REFUSED_NAMES.has(tool.name) || tool.category === "write" || tool.group === "editing_builtins" || tool.annotations.readOnly === false || tool.annotations.destructive === true || tool.source === "mcp" && tool.annotations.readOnly !== true;
  if (!writes) return void 0;
  return {
    type: "deny",
    source: "plan",
    code: "PLAN_NOT_APPROVED",
    reason: `"${tool.name}" can change files or state, which the plan phase does not allow before the plan is approved`
  };
}
function decidePermission(request) {
  const { tool, sandbox, approval } = request;
  const denied = sandboxDenial(tool, sandbox);
  if (denied) return denied;
  if (request.planPhase) {
    const planned = planDenial(tool);
    if (planned) return planned;
  }
  if (request.pathDenial) {
    return {
      type: "deny",
      source: "path_policy",
      code: request.pathDenial.code,
      reason: request.pathDenial.message
    };
  }
  const rule = request.rules?.match(tool.name, request.subject);
  if (rule?.effect === "deny") {
    return {
      type: "deny",
      source: "rule",
      code: "APPROVAL_DENIED",
      rule: rule.rule,
      reason: `the configured rule deny "${rule.rule}" refuses this call`
    };
  }
  if (tool.approvalRequired !== void 0) {
    return { type: "ask", source: "config", reason: tool.approvalRequired };
  }
  if (rule?.effect === "ask") {
    return { type: "ask", source: "rule", rule: rule.rule, reason: `the configured rule ask "${rule.rule}"` };
  }
  if (rule?.effect === "allow") {
    return {
      type: "allow",
      source: "rule",
      rule: rule.rule,
      reason: `the configured rule allow "${rule.rule}"`
    };
  }
  if (tool.sessionScoped === true) {
    return { type: "allow", source: "policy", reason: "the tool changes only this session's own state" };
  }
  if (tool.category === "write") {
    return approval === "strict" ? { type: "ask", source: "policy", reason: "approval strict asks before every write" } : { type: "allow", source: "policy", reason: `sandbox ${sandbox} allows writes inside its roots` };
  }
  const shellSandbox = request.planPhase ? "read_only" : sandbox;
  if (tool.category === "shell" && shellSandbox !== "danger_full_access") {
    return approval === "strict" ? { type: "ask", source: "policy", reason: "approval strict asks before every command" } : {
      type: "allow",
      source: "sandbox",
      reason: `the command runs inside the ${shellSandbox} OS sandbox${request.planPhase ? " (plan phase)" : ""}`
    };
  }
  if (approval === "never")
    return { type: "allow", source: "policy", reason: "approval never allows the rest" };
  const { readOnly, destructive, openWorld } = tool.annotations;
  if (readOnly === true && openWorld === false && destructive !== true) {
    return { type: "allow", source: "annotation", reason: "the tool is read-only and closed-world" };
  }
  if (approval === "strict")
    return { type: "ask", source: "policy", reason: "approval strict asks before this call" };
  if (tool.trusted && destructive !== true) {
    return {
      type: "allow",
      source: "config",
      reason: "a configured server that is not declared destructive"
    };
  }
  if (destructive === true || openWorld === true) {
    return { type: "ask", source: "annotation", reason: "the tool is declared destructive or open-world" };
  }
  return {
    type: "ask",
    source: "annotation",
    reason: "the tool does not declare itself safe (annotations incomplete)"
  };
}

// src/permit-call.ts
import {
  isErrorCode,
  ToolhostError
} from "@toolhost/contracts";

// src/delegating-tools.ts
var delegating = /* @__PURE__ */ new WeakSet();
function markDelegatingTool(definition) {
  delegating.add(definition);
}
function isDelegatingTool(definition) {
  return delegating.has(definition);
}

// src/permission-rules.ts
import { domainToASCII } from "url";
import { err, ok } from "@toolhost/contracts";
var NAME = /^[^\s()*]{1,128}$/;
var RULE = /^([^\s()*]{1,128})\((.*)\)$/s;
function parsePermissionRule(text) {
  if (typeof text !== "string")
    return err('expected a string rule such as "read_file" or "bash(git status:*)"');
  const trimmed = text.trim();
  if (NAME.test(trimmed)) return ok({ text: trimmed, toolName: trimmed });
  const match = RULE.exec(trimmed);
  if (!match) {
    return err(
      trimmed.includes("*") && !trimmed.includes("(") ? 'tool names in rules are exact; wildcards such as "mcp__server__*" are not supported' : 'expected an exact tool name or "name(pattern)" such as "bash(git status:*)"'
    );
  }
  const toolName = match[1];
  const pattern = match[2].trim();
  if (pattern === "" || pattern === ":*" || pattern === "*") {
    return err("an argument pattern must not be empty; use the bare tool name to match every call");
  }
  const domain = parseDomainPattern(toolName, pattern);
  if (domain) return domain.ok ? ok({ text: trimmed, toolName, argument: domain.value }) : err(domain.error);
  if (pattern.endsWith(":*")) {
    const prefix = pattern.slice(0, -2).trim();
    if (prefix.includes("*")) return err('only a trailing ":*" is a wildcard in an argument pattern');
    return ok({ text: trimmed, toolName, argument: { kind: "prefix", value: normaliseSpaces(prefix) } });
  }
  if (pattern.includes("*")) return err('only a trailing ":*" is a wildcard in an argument pattern');
  return ok({ text: trimmed, toolName, argument: { kind: "exact", value: normaliseSpaces(pattern) } });
}
function createPermissionRules(lists = {}) {
  const parsed = { deny: [], ask: [], allow: [] };
  for (const effect of ["deny", "ask", "allow"]) {
    (lists[effect] ?? []).forEach((text, index) => {
      const rule = parsePermissionRule(text);
      if (!rule.ok) throw new TypeError(`permissions.${effect}[${index}]: ${rule.error}`);
      parsed[effect].push(rule.value);
    });
  }
  const size = parsed.deny.length + parsed.ask.length + parsed.allow.length;
  return {
    match(toolName, subject) {
      let analysis;
      for (const effect of ["deny", "ask", "allow"]) {
        for (const rule of parsed[effect]) {
          if (rule.toolName !== toolName) continue;
          if (!rule.argument) return { effect, rule: rule.text };
          if (subject === void 0) continue;
          if (rule.argument.kind === "domain") {
            if (domainMatches(rule.argument.value, subject)) return { effect, rule: rule.text };
            continue;
          }
          analysis ??= analyseSubject(subject);
          const candidates = effect === "allow" ? analysis.simple ? analysis.segments : [] : analysis.segments;
          if (candidates.some((segment) => argumentMatches(rule.argument, segment))) {
            return { effect, rule: rule.text };
          }
        }
      }
      return void 0;
    },
    size
  };
}
var DOMAIN_RULE_TOOLS = /* @__PURE__ */ new Set(["web_fetch"]);
var DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
function parseDomainPattern(toolName, pattern) {
  const isDomain = pattern.startsWith("domain:");
  if (!isDomain && !DOMAIN_RULE_TOOLS.has(toolName)) return void 0;
  if (!isDomain)
    return { ok: false, error: `${toolName} rules name a domain, such as "${toolName}(domain:example.com)"` };
  let value = pattern.slice("domain:".length).trim().toLowerCase();
  if (value.endsWith(".")) value = value.slice(0, -1);
  if (value.startsWith("[") && value.endsWith("]")) value = value.slice(1, -1);
  else if (/^[^\s/\\:@?#*[\]%]+$/u.test(value)) value = domainToASCII(value) || value;
  if (!(DOMAIN.test(value) || value.includes(":") && /^[0-9a-f:.]+$/.test(value)))
    return {
      ok: false,
      error: 'a domain pattern is a host name such as "domain:example.com" (no scheme, port, path or wildcard)'
    };
  return { ok: true, value: { kind: "domain", value } };
}
function domainMatches(domain, host) {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === domain || name.endsWith(`.${domain}`);
}
function argumentMatches(argument, segment) {
  if (argument.kind === "exact") return segment === argument.value;
  return segment === argument.value || segment.startsWith(`${argument.value} `);
}
function analyseSubject(subject) {
  const segments = [];
  let current = "";
  let simple = true;
  let quote;
  const flush = () => {
    const words = normaliseSpaces(current);
    const segment = stripAssignments(words);
    if (segment !== words) simple = false;
    if (segment) segments.push(segment);
    current = "";
  };
  for (let index = 0; index < subject.length; index++) {
    const char = subject[index];
    const next = subject[index + 1];
    if (quote === "'") {
      if (char === "'") quote = void 0;
      current += char;
      continue;
    }
    if (char === "\\") {
      current += char + (next ?? "");
      index++;
      continue;
    }
    if (quote === '"') {
      if (char === '"') quote = void 0;
      else if (char === "`" || char === "$" && next === "(") {
        simple = false;
        flush();
        continue;
      }
      current += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      current += char;
      continue;
    }
    if (char === ";" || char === "\n" || char === "\r" || char === "|" || char === "&" || char === "`") {
      simple = false;
      flush();
      continue;
    }
    if (char === "$" && next === "(") {
      simple = false;
      flush();
      index++;
      continue;
    }
    if (char === "(" || char === ")" || char === "{" || char === "}") {
      simple = false;
      flush();
      continue;
    }
    if (char === ">" || char === "<") {
      simple = false;
      if (next === "(") {
        flush();
        index++;
        continue;
      }
    }
    current += char;
  }
  flush();
  if (segments.length !== 1) simple = false;
  return { segments, simple };
}
function stripAssignments(segment) {
  let rest = segment;
  for (; ; ) {
    const match = /^[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+/.exec(rest);
    if (!match) return rest;
    rest = rest.slice(match[0].length);
  }
}
function normaliseSpaces(text) {
  return text.trim().replace(/[ \t]+/g, " ");
}
var SUBCOMMAND = /^[A-Za-z][A-Za-z-]*$/;
var PLAIN_WORD = /^[A-Za-z0-9_./+-]+$/;
function sessionPrefixRule(toolName, subject) {
  const analysis = analyseSubject(subject);
  if (!analysis.simple) return void 0;
  const words = (analysis.segments[0] ?? "").split(" ");
  const first = words[0] ?? "";
  if (!PLAIN_WORD.test(first)) return void 0;
  const second = words[1];
  const prefix = second !== void 0 && SUBCOMMAND.test(second) ? `${first} ${second}` : first;
  const rule = `${toolName}(${prefix}:*)`;
  return parsePermissionRule(rule).ok ? rule : void 0;
}

// src/plan-mode.ts
import { defineTool, textResult } from "@toolhost/contracts";

// src/plan-schemas.generated.ts
var exitPlanModeArgumentsSchema = {
  "additionalProperties": false,
  "properties": {
    "plan": {
      "description": "The plan to carry out, in Markdown: the steps, the files to change and how the result will be checked. A person reads it and approves or declines it.",
      "maxLength": 65536,
      "minLength": 1,
      "type": "string"
    }
  },
  "required": [
    "plan"
  ],
  "type": "object"
};

// src/plan-mode.ts
var EXIT_PLAN_MODE = "exit_plan_mode";
var DESCRIPTION = [
  "Present your plan for approval and leave plan mode. This session started in a plan phase: explore and read freely, but editing files, writing or destructive tools and commands that change files are refused (PLAN_NOT_APPROVED) until a person approves a plan.",
  "When you know what to do, call this once with the complete plan (steps, files to change, how you will check the result). If it is approved, the session continues with its configured permissions and you carry out the plan; if it is declined, keep planning and revise it."
].join(" ");
function createExitPlanModeTool(options) {
  return defineTool({
    name: EXIT_PLAN_MODE,
    source: "builtin",
    group: "utility_builtins",
    category: "utility",
    annotations: { readOnly: true, destructive: false, openWorld: false, idempotent: true },
    execution: { mode: "sequential", timeoutMs: 1e4, abortable: true },
    pathAccess: "none",
    visibility: "hidden",
    modelTool: { name: EXIT_PLAN_MODE, description: DESCRIPTION, inputSchema: exitPlanModeArgumentsSchema },
    permission: {
      // For the person who approves it (never logged).
      preview: (args) => args.plan
    },
    async execute(_args, context) {
      const phase = options.planOf(context);
      if (!phase) {
        return textResult(
          "This session is not in a plan phase, so there is nothing to approve; carry on within the run policy."
        );
      }
      if (!phase.active) return textResult("The plan was approved already; carry it out.");
      const note = phase.end();
      return textResult(
        `The plan was approved. The session now runs under its configured sandbox (${phase.sandbox}): editing tools and commands that change files work again. Carry out the plan.${note ? `

${note}` : ""}`
      );
    }
  });
}

// src/select-surface.ts
var USE_CAPABILITY = "use_capability";
var LEAN_SURFACE_TOOLS = Object.freeze([
  "job_output",
  "job_kill",
  "read_file",
  "write_file",
  "edit_file",
  "view_image",
  USE_CAPABILITY
]);
var CONVERSATION_TOOLS = Object.freeze(["compress"]);
function shellToolName(platform) {
  return platform === "windows" ? "pwsh" : "bash";
}
function selectSurface(options) {
  const shell = shellToolName(options.platform);
  const otherShell = shell === "bash" ? "pwsh" : "bash";
  const lean = /* @__PURE__ */ new Set([shell, ...LEAN_SURFACE_TOOLS]);
  const selected = options.tools.filter((tool) => {
    const definition = tool.definition;
    if (definition.visibility !== "listed") return false;
    if (tool.name === otherShell) return false;
    if (options.sandbox === "read_only" && definition.group === "editing_builtins") return false;
    if (tool.name === USE_CAPABILITY) return true;
    if (definition.source !== "builtin") return false;
    if (CONVERSATION_TOOLS.includes(tool.name)) return options.conversation === true;
    return options.profile === "full" || lean.has(tool.name);
  });
  return selected.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

// src/permit-call.ts
function toolFacts(tool) {
  const definition = tool.definition;
  return {
    name: tool.name,
    source: definition.source,
    group: definition.group,
    category: definition.category,
    // The proxy only routes: every target it reaches is checked on its own (an MCP connect or call
    // through `authorize`; a `tool:<name>` is resolved to the tool itself before this step), so the
    // router itself is a safe read here. What it can reach is announced to MCP clients separately.
    annotations: tool.name === USE_CAPABILITY || isDelegatingTool(definition) ? { readOnly: true, destructive: false, openWorld: false } : definition.annotations,
    // Only a built-in's claim is believed: nothing from outside the host is exempt from the sandbox.
    ...definition.sessionScoped === true && definition.source === "builtin" ? { sessionScoped: true } : {}
  };
}
async function permitCall(context, toolFactsIn, input) {
  let facts = toolFactsIn;
  const { audit } = context;
  const permission = input.tool?.definition.permission;
  const paths = [];
  const resolvedPaths = [];
  let pathDenial;
  let subject = input.subject;
  let preview = input.preview;
  const planPhase = context.plan?.active === true;
  if (planPhase && facts.name === EXIT_PLAN_MODE && facts.source === "builtin") {
    facts = { ...facts, approvalRequired: "leaving the plan phase needs a person to approve the plan" };
  }
  const refusedEarly = sandboxDenial(facts, context.sandbox) ?? (planPhase ? planDenial(facts) : void 0);
  if (!refusedEarly && permission && input.args) {
    try {
      const targets = permission.paths?.(input.args) ?? [];
      for (const target of targets) {
        if (!context.pathPolicy) break;
        const resolved = await context.pathPolicy.resolve(target.path ?? void 0, {
          access: target.access,
          optional: true,
          // Refusals name the argument, never the value the model sent.
          argument: target.argument
        });
        if (!resolved.ok) {
          pathDenial = { ...resolved.error, argument: target.argument };
          break;
        }
        paths.push({
          argument: target.argument,
          path: resolved.path,
          displayPath: resolved.displayPath,
          access: target.access
        });
        if (typeof resolved.exists === "boolean")
          resolvedPaths.push({
            argument: target.argument,
            input: target.path,
            access: target.access,
            path: resolved.path,
            displayPath: resolved.displayPath,
            exists: resolved.exists,
            resolvedBy: context.pathPolicy
          });
      }
      subject ??= permission.subject?.(input.args);
      preview ??= permission.preview?.(input.args);
    } catch (error) {
      const failure = new ToolhostError({
        code: "HOST_CONFIGURATION",
        message: `the permission inputs of "${facts.name}" could not be computed; the call was not dispatched`,
        recovery: null,
        cause: error
      });
      const decision2 = {
        type: "deny",
        source: "host",
        code: "HOST_CONFIGURATION",
        reason: "permission inputs failed"
      };
      audit.emit("permission-decided", {
        callId: input.callId,
        toolName: facts.name,
        ...decisionFields(decision2)
      });
      return { decision: decision2, error: failure };
    }
  }
  const decision = decidePermission({
    tool: facts,
    sandbox: context.sandbox,
    approval: context.approval,
    rules: context.rules,
    ...planPhase ? { planPhase } : {},
    ...subject === void 0 ? {} : { subject },
    ...pathDenial ? { pathDenial } : {}
  });
  audit.emit("permission-decided", {
    callId: input.callId,
    toolName: facts.name,
    ...decisionFields(decision),
    ...pathDenial ? { deniedArgument: pathDenial.argument } : {},
    paths: paths.map(({ argument, path, displayPath, access }) => ({ argument, path, displayPath, access })),
    sandbox: context.sandbox,
    approval: context.approval,
    ...planPhase ? { planPhase } : {},
    toolSource: facts.source,
    group: facts.group,
    category: facts.category,
    ...input.tool ? {
      pathAccess: input.tool.definition.pathAccess,
      executionMode: input.tool.definition.execution.mode
    } : {}
  });
  if (decision.type === "allow") return { decision, resolvedPaths };
  if (decision.type === "deny") return { decision, error: denialError(decision, facts.name) };
  const asked = await askPerson(context, facts, decision, {
    callId: input.callId,
    invocation: input.invocation,
    subject,
    preview,
    paths,
    signal: input.signal
  });
  return asked.error ? asked : { ...asked, resolvedPaths };
}
function denialError(decision, toolName) {
  const code = isErrorCode(decision.code) ? decision.code : "PERMISSION_DENIED";
  return new ToolhostError({
    code,
    message: decision.reason,
    // A path policy message already says what to do instead.
    ...decision.source === "path_policy" ? { recovery: null } : {},
    ...decision.source === "plan" && toolName === "present" ? { recovery: "present your work after the plan is approved (call exit_plan_mode with your plan)" } : {},
    details: {
      toolName,
      decisionSource: decision.source,
      ...decision.rule ? { rule: decision.rule } : {},
      ...decision.code === code ? {} : { policyCode: decision.code }
    }
  });
}
function rememberable(facts, decision, subject) {
  if (decision.source === "rule" || decision.source === "config" || decision.source === "hook")
    return void 0;
  if (decision.source === "extension" || facts.approvalRequired !== void 0) return void 0;
  if (facts.category !== "shell") return { kind: "tool", text: facts.name };
  if (subject === void 0 || subject.trim() === "") return void 0;
  const prefix = sessionPrefixRule(facts.name, subject);
  return prefix !== void 0 ? { kind: "prefix", text: prefix } : { kind: "exact", text: `${facts.name}(${subject})`, subject };
}
function readAnswer(answer) {
  if (answer === "timeout" || answer === "cancelled" || answer === "error")
    return { choice: "deny", by: answer };
  if (answer === true || answer === "allow_once") return { choice: "allow_once", by: "user" };
  if (answer === "allow_session") return { choice: "allow_session", by: "user" };
  if (typeof answer !== "object" || answer === null) return { choice: "deny", by: "user" };
  const reason = typeof answer.reason === "string" && answer.reason.trim() ? answer.reason.trim().slice(0, 1e3) : void 0;
  const withReason = reason === void 0 ? {} : { reason };
  if ("decision" in answer) {
    const choice = answer.decision;
    if (choice === "allow_once" || choice === "allow_session" || choice === "unavailable")
      return { choice, by: choice === "unavailable" ? "unavailable" : "user", ...withReason };
    return { choice: "deny", by: "user", ...withReason };
  }
  return { choice: answer.approved === true ? "allow_once" : "deny", by: "user", ...withReason };
}
function approvalRemedy(context, facts, decision, remember) {
  if (decision.source === "config")
    return "do not retry it; ask the person to approve the configuration or the plan outside this run";
  if (decision.source === "rule" && decision.rule)
    return `do not retry it; the configured rule ask "${decision.rule}" asks every time (the person can remove it, or use a client that can be asked)`;
  if (decision.source === "hook" || decision.source === "extension")
    return "do not retry it; a hook asks a person to confirm this call, and no one can be asked here";
  if (context.approval === "strict")
    return "do not retry it; approval strict asks before this call (the person can run with --approval on_request, or use a client that can be asked)";
  const rule = remember?.kind === "exact" ? void 0 : remember?.text ?? facts.name;
  return rule === void 0 ? "do not retry it; the person can run it themselves, use a client that can be asked, or allow the command in a simpler form" : `do not retry it; the person can allow it with "${rule}" in permissions.allow of toolhost.config.json, or use a client that can be asked`;
}
async function askPerson(context, facts, decision, input) {
  const { audit } = context;
  const approve = context.approve;
  const remember = rememberable(facts, decision, input.subject);
  const shell = facts.category === "shell";
  if (remember !== void 0) {
    const covered = context.approvals.covers(facts.name, input.subject, shell);
    if (covered !== void 0) {
      audit.emit("approval-resolved", {
        callId: input.callId,
        toolName: facts.name,
        approved: true,
        by: "session",
        remembered: covered
      });
      return {
        decision: {
          type: "allow",
          source: "user",
          rule: covered,
          reason: "a person allowed this for the rest of the session"
        }
      };
    }
  }
  const unavailable = (why2, requested) => {
    const error = new ToolhostError({
      code: "APPROVAL_REQUIRED",
      message: `"${facts.name}" needs approval (${decision.reason}) and ${why2}; the action was not performed`,
      recovery: approvalRemedy(context, facts, decision, remember),
      details: {
        toolName: facts.name,
        decisionSource: decision.source,
        ...decision.rule ? { rule: decision.rule } : {},
        ...remember && remember.kind !== "exact" ? { allowRule: remember.text } : {}
      }
    });
    if (!requested) {
      audit.emit("approval-requested", {
        callId: input.callId,
        toolName: facts.name,
        reason: decision.reason,
        decisionSource: decision.source,
        canAsk: false
      });
    }
    audit.emit("approval-resolved", {
      callId: input.callId,
      toolName: facts.name,
      approved: false,
      by: "unavailable"
    });
    return {
      decision: {
        type: "deny",
        source: "host",
        code: "APPROVAL_REQUIRED",
        reason: `needs approval and ${why2}`
      },
      error
    };
  };
  if (!approve || context.approval === "never") {
    return unavailable(
      context.approval === "never" ? "approval policy never asks a person" : "this host has no way to ask a person",
      false
    );
  }
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error("approval timed out")),
    Math.min(context.approvalTimeoutMs, 2147483647)
  );
  const onAbort = () => controller.abort(new Error("call cancelled"));
  const signals = [input.signal, context.closeSignal].filter((s) => s !== void 0);
  for (const signal of signals) {
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  }
  audit.emit("approval-requested", {
    callId: input.callId,
    toolName: facts.name,
    reason: decision.reason,
    decisionSource: decision.source,
    ...decision.rule ? { rule: decision.rule } : {},
    ...remember ? { remember: remember.kind === "exact" ? `${facts.name}(exact command)` : remember.text } : {},
    paths: input.paths.map(({ argument, displayPath, access }) => ({ argument, path: displayPath, access }))
  });
  let answer;
  try {
    const cancelled = new Promise((resolve5) => {
      const settle = () => resolve5(controller.signal.reason?.message === "approval timed out" ? "timeout" : "cancelled");
      if (controller.signal.aborted) settle();
      else controller.signal.addEventListener("abort", settle, { once: true });
    });
    const choices = remember === void 0 ? ["allow_once", "deny"] : ["allow_once", "allow_session", "deny"];
    const request = {
      callId: input.callId,
      toolName: facts.name,
      source: facts.source,
      group: facts.group,
      category: facts.category,
      annotations: facts.annotations,
      invocation: input.invocation,
      sandbox: context.sandbox,
      approval: context.approval,
      reason: decision.reason,
      decisionSource: decision.source,
      ...decision.rule ? { rule: decision.rule } : {},
      ...input.subject === void 0 ? {} : { subject: input.subject },
      ...input.preview === void 0 ? {} : { preview: input.preview },
      paths: input.paths,
      choices,
      ...remember === void 0 ? {} : { remember: remember.text },
      signal: controller.signal
    };
    answer = await Promise.race([Promise.resolve().then(() => approve(request)), cancelled]);
  } catch {
    answer = "error";
  } finally {
    clearTimeout(timer);
    for (const signal of signals) signal.removeEventListener("abort", onAbort);
  }
  const read = readAnswer(answer);
  if (read.choice === "unavailable") {
    return unavailable(
      read.reason ? `no one can be asked (${read.reason})` : "no one can be asked here",
      true
    );
  }
  const approved = read.choice !== "deny";
  const remembered = read.choice === "allow_session" && remember !== void 0 ? remember : void 0;
  if (remembered !== void 0) context.approvals.remember(remembered);
  audit.emit("approval-resolved", {
    callId: input.callId,
    toolName: facts.name,
    approved,
    by: read.by,
    ...approved ? { choice: remembered !== void 0 ? "allow_session" : "allow_once" } : {},
    ...remembered !== void 0 ? { remembered: remembered.kind === "exact" ? `${facts.name}(exact command)` : remembered.text } : {}
  });
  if (approved) {
    return {
      decision: {
        type: "allow",
        source: "user",
        reason: remembered !== void 0 ? "a person allowed this for the rest of the session" : "a person approved this call",
        ...remembered !== void 0 && remembered.kind !== "exact" ? { rule: remembered.text } : {}
      }
    };
  }
  const by = read.by;
  const why = by === "timeout" ? "no one answered the approval request in time" : by === "cancelled" ? "the call was cancelled while waiting for approval" : by === "error" ? "the approval request failed" : `a person declined it${read.reason ? `: ${read.reason}` : ""}`;
  return {
    decision: { type: "deny", source: "user", code: "APPROVAL_DENIED", reason: why },
    error: new ToolhostError({
      code: "APPROVAL_DENIED",
      message: `"${facts.name}" was not approved (${why}); the action was not performed`,
      details: { toolName: facts.name, by }
    })
  };
}
function decisionFields(decision) {
  return {
    decision: decision.type,
    source: decision.source,
    reason: decision.reason,
    ...decision.type === "deny" ? { code: decision.code } : {},
    ...decision.rule ? { rule: decision.rule } : {}
  };
}

// src/capability-refusal.ts
var MOST_PERMISSIVE_HINTS = Object.freeze({
  readOnly: true,
  destructive: false,
  openWorld: false
});
function believedMcpHints(claimed, trusted) {
  if (trusted) return claimed;
  return {
    ...claimed.readOnly === false ? { readOnly: false } : {},
    ...claimed.destructive === true ? { destructive: true } : {},
    ...claimed.openWorld === true ? { openWorld: true } : {}
  };
}
function strictReadOnlyRefusal(toolName) {
  return new ToolhostError2({
    code: "PERMISSION_DENIED",
    message: `"${toolName}" is not declared read-only by a trusted server, and this read-only session runs only read-only tools`,
    recovery: "leave it to a session that may write, or use a read-only capability",
    details: { toolName, decisionSource: "sandbox", remoteDispatched: false }
  });
}
function denial(decision, toolName) {
  const code = isErrorCode2(decision.code) ? decision.code : "PERMISSION_DENIED";
  return new ToolhostError2({
    code,
    message: decision.reason,
    details: {
      toolName,
      decisionSource: decision.source,
      remoteDispatched: false,
      ...decision.rule ? { rule: decision.rule } : {}
    }
  });
}
function capabilityRefusal(context, target, session, call) {
  if (target.kind === "tool") {
    const facts = toolFacts(target.tool);
    const decision2 = decidePermission({
      tool: facts,
      sandbox: context.sandbox,
      approval: context.approval,
      rules: context.rules
    });
    return decision2.type === "deny" ? denial(decision2, facts.name) : void 0;
  }
  const fromProject = session.untrustedServers.has(target.server);
  const trustedHints = target.annotationsTrusted && !fromProject;
  const annotations = target.annotations === void 0 ? trustedHints ? MOST_PERMISSIVE_HINTS : believedMcpHints(MOST_PERMISSIVE_HINTS, false) : believedMcpHints(target.annotations, trustedHints);
  let decision;
  let refusal;
  if (session.readOnlyStrict && !(annotations.readOnly === true && annotations.destructive !== true)) {
    refusal = strictReadOnlyRefusal(target.toolName);
    decision = { type: "deny", source: "sandbox", code: "PERMISSION_DENIED", reason: refusal.message };
  } else {
    decision = decidePermission({
      tool: {
        name: target.toolName,
        source: "mcp",
        group: "utility_builtins",
        category: annotations.readOnly === true ? "read" : "utility",
        annotations
      },
      sandbox: context.sandbox,
      approval: context.approval,
      rules: context.rules
    });
    if (decision.type === "deny") refusal = denial(decision, target.toolName);
  }
  if (refusal && call) {
    context.audit.emit("permission-decided", {
      callId: call.callId,
      toolName: target.toolName,
      ...decisionFields(decision),
      phase: "before-connect",
      sandbox: context.sandbox,
      approval: context.approval,
      toolSource: "mcp"
    });
  }
  return refusal;
}

// src/call-interceptors.ts
import { AsyncLocalStorage } from "async_hooks";
import { deepFreeze, outputText } from "@toolhost/contracts";

// src/host-extension.ts
var EXTENSION_TIMEOUT_MS = 6e4;

// src/run-hooks.ts
import { isJsonObject, utf8BoundaryBefore } from "@toolhost/contracts";
import { createJobEnvironment } from "@toolhost/jobs";

// src/run-hook-command.ts
import { spawn } from "child_process";
import { errorMessage } from "@toolhost/contracts";
var DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
var CLOSE_WAIT_MS = 2e3;
function runHookCommand(options) {
  const started = performance.now();
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  return new Promise((resolve5) => {
    let child;
    const finishEarly = (ending2, stderr2 = "") => resolve5({
      exitCode: null,
      ending: ending2,
      stdout: "",
      stderr: stderr2,
      truncated: false,
      durationMs: performance.now() - started
    });
    if (options.signal?.aborted) return finishEarly("aborted");
    try {
      child = spawn(options.command, {
        cwd: options.cwd,
        env: { ...options.env },
        shell: true,
        stdio: ["pipe", "pipe", "pipe"],
        detached: process.platform !== "win32",
        windowsHide: true
      });
    } catch (error) {
      return finishEarly("spawn_failed", errorMessage(error));
    }
    const stdout = boundedCollector(maxBytes);
    const stderr = boundedCollector(maxBytes);
    child.stdout?.on("data", stdout.push);
    child.stderr?.on("data", stderr.push);
    let ending = "exited";
    let exitCode = null;
    let settled = false;
    let closeTimer;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(closeTimer);
      options.signal?.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve5({
        exitCode,
        ending,
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated() || stderr.truncated(),
        durationMs: performance.now() - started
      });
    };
    const stop = (why) => {
      if (ending === "exited" && exitCode === null) ending = why;
      killTree(child);
    };
    const timer = setTimeout(() => stop("timeout"), Math.min(options.timeoutMs, 2147483647));
    const onAbort = () => stop("aborted");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => {
      if (child.pid === void 0) {
        ending = "spawn_failed";
        stderr.push(Buffer.from(error.message));
        settle();
      }
    });
    child.on("exit", (code) => {
      exitCode = ending === "exited" ? code : null;
      killTree(child);
      closeTimer = setTimeout(settle, CLOSE_WAIT_MS);
    });
    child.on("close", settle);
    child.stdin?.on("error", () => void 0);
    child.stdin?.end(options.input);
  });
}
function killTree(child) {
  const pid = child.pid;
  if (pid === void 0) return;
  if (process.platform === "win32") {
    try {
      spawn("taskkill", ["/pid", String(pid), "/T", "/F"], { stdio: "ignore", windowsHide: true }).on(
        "error",
        () => void 0
      );
    } catch {
    }
    return;
  }
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
  }
}
function boundedCollector(maxBytes) {
  const chunks = [];
  let kept = 0;
  let dropped = false;
  return {
    push: (chunk) => {
      if (kept >= maxBytes) {
        dropped = true;
        return;
      }
      const room = maxBytes - kept;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      if (part.length < chunk.length) dropped = true;
      chunks.push(part);
      kept += part.length;
    },
    text: () => Buffer.concat(chunks).toString("utf8"),
    truncated: () => dropped
  };
}

// src/run-hooks.ts
var MAX_HOOK_REASON_BYTES = 4096;
var MAX_HOOK_INPUT_TEXT_BYTES = 256 * 1024;
var NO_HOOKS = Object.freeze({
  ran: 0,
  decision: "none",
  denyReasons: [],
  askReasons: [],
  additionalContext: []
});
function createHookRunner(options) {
  const environment = createJobEnvironment(options.hostEnvironment ?? process.env, {
    set: { TOOLHOST_PROJECT_DIR: options.cwd, CLAUDE_PROJECT_DIR: options.cwd }
  });
  const matching = (event, name) => {
    const seen = /* @__PURE__ */ new Set();
    return options.hooks.filter((hook) => {
      if (hook.event !== event || !hook.matcher.matches(name)) return false;
      if (seen.has(hook.command)) return false;
      seen.add(hook.command);
      return true;
    });
  };
  return {
    matches: (event, name) => matching(event, name).length > 0,
    async run(event, name, input, runOptions) {
      const hooks = matching(event, name);
      if (hooks.length === 0) return NO_HOOKS;
      const stdin = JSON.stringify(input);
      const runs = await Promise.all(
        hooks.map(async (hook) => {
          const run = await runHookCommand({
            command: hook.command,
            input: stdin,
            cwd: options.cwd,
            env: environment,
            timeoutMs: hook.timeoutMs,
            signal: runOptions.signal
          });
          const reading = readHookRun(event, run);
          runOptions.audit.emit("hook-decided", {
            ...runOptions.callId ? { callId: runOptions.callId } : {},
            ...input.tool_name ? { toolName: input.tool_name } : {},
            event,
            hook: hook.id,
            hookSource: hook.source,
            ...hook.matcher.text ? { matcher: hook.matcher.text } : {},
            ending: run.ending,
            ...run.exitCode === null ? {} : { exitCode: run.exitCode },
            verdict: reading.verdict,
            ...reading.problem ? { problem: reading.problem } : {},
            ...reading.updatedInput ? { updatedInput: true } : {},
            ...reading.additionalContext ? { additionalContext: true } : {},
            ...reading.reason ? { reasonBytes: Buffer.byteLength(reading.reason) } : {},
            durationMs: Math.round(run.durationMs)
          });
          return reading;
        })
      );
      return combine(runs);
    }
  };
}
function readHookRun(event, run) {
  if (run.ending === "timeout") return { verdict: "error", problem: "timed out (killed)" };
  if (run.ending === "aborted") return { verdict: "error", problem: "cancelled with its call" };
  if (run.ending === "spawn_failed") return { verdict: "error", problem: "could not be started" };
  if (run.exitCode === 2) {
    const reason = boundReason(run.stderr) || "a hook refused this call (exit code 2, no message)";
    return { verdict: "block", reason };
  }
  if (run.exitCode !== 0) {
    return {
      verdict: "error",
      problem: run.exitCode === null ? "ended by a signal" : `exit code ${run.exitCode}`
    };
  }
  const text = run.stdout.trim();
  if (!text.startsWith("{")) {
    return event === "SessionStart" && text !== "" ? { verdict: "continue", additionalContext: boundReason(text) } : { verdict: "continue" };
  }
  let output;
  try {
    output = run.truncated ? void 0 : JSON.parse(text);
  } catch {
    output = void 0;
  }
  if (!isJsonObject(output)) {
    return { verdict: "error", problem: run.truncated ? "output too large" : "stdout is not valid JSON" };
  }
  return readHookJson(event, output);
}
function readHookJson(event, output) {
  const specific = isJsonObject(output.hookSpecificOutput) ? output.hookSpecificOutput : {};
  const contextText = typeof specific.additionalContext === "string" && specific.additionalContext.trim() !== "" ? boundReason(specific.additionalContext) : void 0;
  const withContext = (reading) => contextText === void 0 ? reading : { ...reading, additionalContext: contextText };
  if (output.continue === false) {
    const stopReason = typeof output.stopReason === "string" && output.stopReason.trim() !== "" ? boundReason(output.stopReason) : "a hook stopped the session";
    return withContext({ verdict: "stop", stopReason });
  }
  const jsonReason = (value) => typeof value === "string" && value.trim() !== "" ? boundReason(value) : void 0;
  if (event === "PreToolUse") {
    const decision = specific.permissionDecision;
    const reason = jsonReason(specific.permissionDecisionReason) ?? jsonReason(output.reason);
    let updatedInput;
    if (specific.updatedInput !== void 0) {
      if (!isJsonObject(specific.updatedInput)) {
        return {
          verdict: "deny",
          reason: "a hook returned an updatedInput that is not an object",
          invalid: true,
          problem: "updatedInput is not an object"
        };
      }
      updatedInput = specific.updatedInput;
    }
    const rewrite = updatedInput ? { updatedInput } : {};
    if (decision === "deny" || output.decision === "block") {
      return withContext({ verdict: "deny", reason: reason ?? "a PreToolUse hook refused this call" });
    }
    if (decision === "ask") {
      return withContext({
        verdict: "ask",
        reason: reason ?? "a PreToolUse hook asks a person to confirm",
        ...rewrite
      });
    }
    if (decision === "allow" || output.decision === "approve") {
      return withContext({ verdict: "allow", ...reason ? { reason } : {}, ...rewrite });
    }
    if (decision !== void 0) {
      return {
        verdict: "deny",
        reason: "a hook returned an unknown permissionDecision",
        invalid: true,
        problem: "unknown permissionDecision"
      };
    }
    return withContext({ verdict: "continue", ...rewrite });
  }
  if (event === "PostToolUse" && output.decision === "block") {
    return withContext({
      verdict: "block",
      reason: jsonReason(output.reason) ?? "a PostToolUse hook objected to this result"
    });
  }
  return withContext({ verdict: "continue" });
}
function combine(readings) {
  const denyReasons = [];
  const askReasons = [];
  const additionalContext = [];
  let allowed = false;
  let stop;
  let invalid3;
  let updatedInput;
  let updatedKey;
  for (const reading of readings) {
    if (reading.additionalContext) additionalContext.push(reading.additionalContext);
    if (reading.invalid) invalid3 ??= reading.problem ?? "unusable hook output";
    if (reading.verdict === "stop") stop ??= { reason: reading.stopReason ?? "a hook stopped the session" };
    if (reading.verdict === "deny" || reading.verdict === "block") denyReasons.push(reading.reason ?? "");
    if (reading.verdict === "ask") askReasons.push(reading.reason ?? "");
    if (reading.verdict === "allow") allowed = true;
    if (reading.updatedInput) {
      const key = JSON.stringify(reading.updatedInput);
      if (updatedKey !== void 0 && key !== updatedKey) {
        invalid3 ??= "hooks returned different updatedInput values";
        denyReasons.push("the hooks of this call returned different rewritten inputs");
      }
      updatedKey ??= key;
      updatedInput ??= reading.updatedInput;
    }
  }
  const decision = denyReasons.length > 0 ? "deny" : askReasons.length > 0 ? "ask" : allowed ? "allow" : "none";
  return {
    ran: readings.length,
    decision,
    denyReasons,
    askReasons,
    ...updatedInput && decision !== "deny" ? { updatedInput } : {},
    ...invalid3 ? { invalid: invalid3 } : {},
    additionalContext,
    ...stop ? { stop } : {}
  };
}
function boundReason(text) {
  const clean = text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "").replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "").trim();
  const bytes = Buffer.from(clean, "utf8");
  if (bytes.length <= MAX_HOOK_REASON_BYTES) return clean;
  const end = utf8BoundaryBefore(bytes, MAX_HOOK_REASON_BYTES - 3);
  return `${bytes.subarray(0, end).toString("utf8")}...`;
}
function boundHookText(text) {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= MAX_HOOK_INPUT_TEXT_BYTES) return { text, truncated: false };
  const end = utf8BoundaryBefore(bytes, MAX_HOOK_INPUT_TEXT_BYTES);
  return { text: bytes.subarray(0, end).toString("utf8"), truncated: true };
}

// src/call-interceptors.ts
var executionScope = new AsyncLocalStorage();
function frozenCopy(value) {
  return deepFreeze(structuredClone(value));
}
var frozenArguments = /* @__PURE__ */ new WeakMap();
function extensionCall(context, call, signal) {
  let args = frozenArguments.get(call);
  if (!args) {
    args = frozenCopy(call.args);
    frozenArguments.set(call, args);
  }
  return {
    sessionId: context.sessionId,
    callId: call.callId,
    calledName: call.name,
    toolName: call.tool.name,
    arguments: args,
    invocation: call.invocation,
    planning: context.plan?.active === true,
    signal
  };
}
async function withinBudget(work) {
  let timer;
  try {
    const value = await Promise.race([
      Promise.resolve().then(work),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("timed out")), EXTENSION_TIMEOUT_MS);
      })
    ]);
    return { ok: true, value };
  } catch (error) {
    return {
      ok: false,
      why: error instanceof Error && error.message === "timed out" ? "timed out" : "threw"
    };
  } finally {
    clearTimeout(timer);
  }
}
async function runBeforeExtensions(context, call, signal) {
  const notes = [];
  let ask;
  for (const extension of context.extensions) {
    if (!extension.beforeCall) continue;
    const before = extension.beforeCall;
    const answer = await withinBudget(() => before(extensionCall(context, call, signal)));
    const emit = (decision2, extra = {}) => context.audit.emit("extension-decided", {
      callId: call.callId,
      toolName: call.tool.name,
      extension: extension.name,
      phase: "before",
      decision: decision2,
      ...extra
    });
    if (!answer.ok) {
      emit("error", { problem: answer.why });
      return {
        kind: "deny",
        by: `extension:${extension.name}`,
        reason: `the host extension "${extension.name}" failed (${answer.why}), so the call was not run`
      };
    }
    const decision = answer.value ?? { action: "continue" };
    switch (decision.action) {
      case "deny":
      case "stop": {
        const reason = textOf(decision.reason) ?? `the host extension "${extension.name}" refused this call`;
        emit(decision.action);
        return {
          kind: "deny",
          by: `extension:${extension.name}`,
          reason,
          ...decision.action === "stop" ? { stop: { reason, by: `extension:${extension.name}` } } : {}
        };
      }
      case "replace": {
        let replacement;
        try {
          replacement = structuredClone(decision.arguments);
        } catch {
          emit("error", { problem: "replacement arguments are not plain data" });
          return {
            kind: "deny",
            by: `extension:${extension.name}`,
            reason: `the host extension "${extension.name}" replaced the call with arguments that are not plain data, so nothing was run`
          };
        }
        emit("replace", { replacedName: typeof decision.name === "string" ? decision.name : call.tool.name });
        return {
          kind: "replace",
          name: typeof decision.name === "string" && decision.name !== "" ? decision.name : call.tool.name,
          arguments: replacement,
          by: `extension:${extension.name}`
        };
      }
      case "ask":
        emit("ask");
        ask ??= textOf(decision.reason) ?? `the host extension "${extension.name}" asks a person to confirm`;
        if (textOf(decision.additionalContext))
          notes.push(contextNote(`extension ${extension.name}`, decision.additionalContext));
        break;
      case "continue":
        emit("continue", textOf(decision.additionalContext) ? { additionalContext: true } : {});
        if (textOf(decision.additionalContext))
          notes.push(contextNote(`extension ${extension.name}`, decision.additionalContext));
        break;
      default:
        emit("error", { problem: "unknown action" });
        return {
          kind: "deny",
          by: `extension:${extension.name}`,
          reason: `the host extension "${extension.name}" answered with an unknown action, so the call was not run`
        };
    }
  }
  return ask === void 0 ? { kind: "continue", notes } : { kind: "continue", notes, ask };
}
async function runAfterExtensions(context, call, response, signal) {
  const notes = [];
  let stop;
  for (const extension of context.extensions) {
    if (!extension.afterCall) continue;
    const after = extension.afterCall;
    const answer = await withinBudget(() => after({ ...extensionCall(context, call, signal), response }));
    const value = answer.ok ? answer.value ?? {} : {};
    context.audit.emit("extension-decided", {
      callId: call.callId,
      toolName: call.tool.name,
      extension: extension.name,
      phase: "after",
      decision: !answer.ok ? "error" : value.stop ? "stop" : "continue",
      ...!answer.ok ? { problem: answer.why } : {},
      ...textOf(value.additionalContext) ? { additionalContext: true } : {}
    });
    if (textOf(value.additionalContext))
      notes.push(contextNote(`extension ${extension.name}`, value.additionalContext));
    if (textOf(value.stop)) stop ??= { reason: value.stop, by: `extension:${extension.name}` };
  }
  return stop ? { notes, stop } : { notes };
}
function toolResponseOf(result) {
  const bounded = boundHookText(outputText(result.output));
  return {
    status: result.ok ? "ok" : "error",
    output: bounded.text,
    error: result.ok ? null : { code: result.error.code, message: result.error.message },
    ...bounded.truncated ? { truncated: true } : {}
  };
}
function hookInput(context, event, fields) {
  return {
    session_id: context.sessionId,
    cwd: context.root,
    hook_event_name: event,
    permission_mode: context.plan?.active === true ? "plan" : "default",
    tool_name: fields.toolName,
    tool_input: fields.toolInput,
    tool_use_id: fields.callId,
    ...fields.toolResponse === void 0 ? {} : { tool_response: fields.toolResponse }
  };
}
async function runToolHooks(context, event, fields, signal) {
  const hooks = context.hooks;
  if (!hooks?.matches(event, fields.toolName)) return void 0;
  return hooks.run(event, fields.toolName, hookInput(context, event, fields), {
    audit: context.audit,
    callId: fields.callId,
    signal
  });
}
function contextNote(from, text) {
  return `[${from}] ${text.trim()}`;
}
function textOf(value) {
  return typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, 4096) : void 0;
}

// src/dispatch-batch.ts
import { ToolhostError as ToolhostError7 } from "@toolhost/contracts";

// src/execute-call.ts
import {
  outputText as outputText2,
  ToolhostError as ToolhostError6,
  utf8BoundaryBefore as utf8BoundaryBefore3
} from "@toolhost/contracts";

// src/pipeline-context.ts
var DEFAULT_CLIENT_INJECTED_KEYS = Object.freeze(["wait_for_previous"]);
var MAX_PARALLEL_CALLS = 8;
var MAX_CALL_REPLACEMENTS = 4;

// src/prepare-call.ts
import {
  boundedText,
  parseArguments,
  ToolhostError as ToolhostError3
} from "@toolhost/contracts";
var SHELL_SYNONYMS = /* @__PURE__ */ new Set(["shell", "powershell", "bash", "pwsh"]);
var CAPABILITY_ID = /^(tool|mcp-tool|mcp-server|session):|^mcp\//;
var TOOL_CAPABILITY = /^\s*tool:(.+?)\s*$/;
var TRACEPARENT = /^[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
function boundedName(name) {
  return boundedText(typeof name === "string" ? name : String(name));
}
function notFound(context, name, callId) {
  const close = closeNames(
    name,
    context.registry.list().map((tool) => tool.name)
  );
  return new ToolhostError3({
    code: "TOOL_NOT_FOUND",
    message: close.length > 0 ? `no tool is named "${boundedName(name)}"; close names: ${close.join(", ")}` : `no tool is named "${boundedName(name)}"`,
    details: { calledName: boundedName(name), closeNames: close, callId }
  });
}
function prepareCall(context, call, batchId, traceparent) {
  const startedAt = performance.now();
  const callId = typeof call.id === "string" && call.id !== "" ? call.id : `call_${++context.counters.call}`;
  const name = typeof call.name === "string" ? call.name : "";
  context.audit.emit("call-received", {
    callId,
    ...batchId ? { batchId } : {},
    calledName: boundedName(name),
    ...traceparent !== void 0 && TRACEPARENT.test(traceparent) ? { traceparent } : {}
  });
  return resolveCall(context, { callId, name, arguments: call.arguments, startedAt });
}
function resolveCall(context, proposal) {
  const { audit, registry } = context;
  const { callId, name, startedAt } = proposal;
  const replaced = proposal.replacement ? { replacement: proposal.replacement.round, replacedBy: proposal.replacement.by } : {};
  const fail = (error, toolName) => {
    audit.emit(toolName === null ? "call-resolved" : "call-validated", {
      callId,
      ...toolName === null ? {} : { toolName },
      ok: false,
      code: error.code,
      ...error.code === "ARGUMENT_VALIDATION" && error.signature ? { validationId: error.signature } : {},
      ...replaced
    });
    return { kind: "failed", callId, name, toolName, error, startedAt };
  };
  let tool;
  let via = "exact";
  let rawArguments = proposal.arguments;
  let invocation = { kind: "direct" };
  const lookup = name ? registry.lookup(name) : void 0;
  if (lookup) {
    tool = lookup.tool;
    if (lookup.alias) via = "alias";
  } else if (SHELL_SYNONYMS.has(name) && context.shellName) {
    tool = registry.get(context.shellName);
    via = "shell_synonym";
  } else if (CAPABILITY_ID.test(name) && registry.has(USE_CAPABILITY)) {
    const parsed = parseArguments(rawArguments);
    if (!parsed.ok) {
      const checked2 = context.validator.validate({
        toolName: name,
        source: "dynamic",
        schema: { type: "object", properties: {} },
        arguments: rawArguments,
        invocation: { kind: "capability", capabilityId: name }
      });
      return fail(checked2.ok ? notFound(context, name, callId) : checked2.error, null);
    }
    const target = catalogTarget(context, name);
    if (target) {
      tool = target;
      rawArguments = parsed.value;
      invocation = { kind: "capability", capabilityId: name.trim() };
    } else {
      tool = registry.get(USE_CAPABILITY);
      rawArguments = { action: "call", capability_id: name, arguments: parsed.value };
    }
    via = "capability";
  }
  if (!tool) return fail(notFound(context, name, callId), null);
  if (tool.definition.source === "hosted") {
    audit.emit("call-resolved", { callId, toolName: tool.name, ok: true, via, ...replaced });
    return fail(
      new ToolhostError3({
        code: "TOOL_NOT_FOUND",
        message: `"${tool.name}" is executed by the model provider and is never dispatched by this host`,
        recovery: "call it through the provider, or use another tool"
      }),
      tool.name
    );
  }
  const injected = dropInjectedKeys(context, tool, rawArguments);
  rawArguments = injected.arguments;
  let checked = context.validator.validate({
    toolName: tool.name,
    source: tool.definition.source,
    schema: tool.canonicalSchema,
    schemaHash: tool.schemaHash,
    arguments: rawArguments,
    invocation
  });
  if (checked.ok && tool.name === USE_CAPABILITY) {
    const envelope = checked.value.arguments;
    const capabilityId = typeof envelope.capability_id === "string" ? envelope.capability_id : void 0;
    const target = envelope.action === "call" && capabilityId !== void 0 ? catalogTarget(context, capabilityId) : void 0;
    if (target) {
      tool = target;
      via = "capability";
      invocation = { kind: "capability", capabilityId: capabilityId.trim() };
      checked = context.validator.validate({
        toolName: tool.name,
        source: tool.definition.source,
        schema: tool.canonicalSchema,
        schemaHash: tool.schemaHash,
        arguments: envelope.arguments ?? {},
        invocation
      });
    }
  }
  audit.emit("call-resolved", {
    callId,
    toolName: tool.name,
    ok: true,
    via,
    ...invocation.kind === "capability" ? { capabilityId: invocation.capabilityId } : {},
    ...replaced
  });
  if (!checked.ok) return fail(checked.error, tool.name);
  audit.emit("call-validated", {
    callId,
    toolName: tool.name,
    ok: true,
    schemaFingerprint: tool.schemaFingerprint,
    schemaValidated: checked.value.schemaValidated,
    ...injected.dropped.length > 0 ? { ignoredKeys: injected.dropped } : {},
    ...replaced
  });
  const args = checked.value.arguments;
  let parallel = tool.definition.execution.mode === "parallel";
  if (tool.name === USE_CAPABILITY) parallel = context.capabilityCallIsParallel?.(args) ?? false;
  return { kind: "ready", callId, name, tool, args, invocation, parallel, startedAt };
}
function catalogTarget(context, capabilityId) {
  const match = TOOL_CAPABILITY.exec(capabilityId);
  if (!match || !context.catalogTool) return void 0;
  return context.catalogTool(match[1]);
}
function dropInjectedKeys(context, tool, raw) {
  if (context.clientInjectedKeys.size === 0) return { arguments: raw, dropped: [] };
  const parsed = typeof raw === "string" ? parseArguments(raw) : { ok: true, value: raw };
  const value = parsed.ok ? parsed.value : void 0;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { arguments: raw, dropped: [] };
  const declared = tool.canonicalSchema.properties ?? {};
  const dropped = Object.keys(value).filter(
    (key) => context.clientInjectedKeys.has(key) && !Object.hasOwn(declared, key)
  );
  if (dropped.length === 0) return { arguments: raw, dropped };
  const kept = {};
  for (const [key, item] of Object.entries(value)) if (!dropped.includes(key)) kept[key] = item;
  return { arguments: kept, dropped };
}

// src/run-tool.ts
import {
  ToolhostError as ToolhostError4,
  toToolhostError
} from "@toolhost/contracts";
var ABORT_GRACE_MS = 500;
async function runTool(options) {
  const { tool } = options;
  const timeoutMs = Math.min(options.timeoutMs ?? tool.execution.timeoutMs, 2147483647);
  const controller = new AbortController();
  const context = {
    callId: options.callId,
    toolName: tool.name,
    signal: controller.signal,
    invocation: options.invocation,
    ...options.onProgress ? { onProgress: options.onProgress } : {},
    ...options.sessionId === void 0 ? {} : { sessionId: options.sessionId },
    ...options.turn === void 0 ? {} : { turn: options.turn },
    ...options.resolvedPaths === void 0 ? {} : { resolvedPaths: options.resolvedPaths }
  };
  if (options.signal?.aborted) {
    return { result: stopped(tool, "aborted", timeoutMs), ending: "aborted" };
  }
  const handler = (async () => tool.execute(options.args, context))().then(
    (value) => normaliseResult(tool.name, value),
    (error) => ({ ok: false, error: toToolhostError(error) })
  );
  let timer;
  let onAbort;
  const stop = new Promise((resolve5) => {
    timer = setTimeout(() => resolve5("timeout"), timeoutMs);
    onAbort = () => resolve5("aborted");
    options.signal?.addEventListener("abort", onAbort, { once: true });
  });
  const first = await Promise.race([
    handler.then((result) => ({ kind: "completed", result })),
    stop.then((kind) => ({ kind }))
  ]);
  clearTimeout(timer);
  if (onAbort) options.signal?.removeEventListener("abort", onAbort);
  if (first.kind === "completed") return { result: first.result, ending: "completed" };
  const ending = first.kind;
  controller.abort(
    new ToolhostError4({
      code: ending === "timeout" ? "TIMEOUT" : "ABORTED",
      message: ending === "timeout" ? `"${tool.name}" exceeded its ${timeoutMs} ms limit` : `"${tool.name}" was cancelled`
    })
  );
  if (tool.execution.abortable) {
    let graceTimer;
    const grace = new Promise((resolve5) => {
      graceTimer = setTimeout(() => resolve5(void 0), ABORT_GRACE_MS);
    });
    const settled = await Promise.race([handler, grace]);
    clearTimeout(graceTimer);
    if (settled === void 0) options.onStraggler?.(handler);
    const output = settled?.output;
    return { result: stopped(tool, ending, timeoutMs, void 0, output), ending };
  }
  const late = await handler;
  return {
    result: stopped(tool, ending, timeoutMs, late.ok ? "succeeded" : late.error, late.output),
    ending,
    lateOutcome: late.ok ? "succeeded" : "failed"
  };
}
function stopped(tool, ending, timeoutMs, late, output) {
  const what = ending === "timeout" ? `"${tool.name}" did not finish within its ${timeoutMs} ms limit` : `"${tool.name}" was cancelled`;
  let message;
  if (late === void 0) {
    message = tool.execution.abortable ? `${what} and was stopped` : what;
  } else if (late === "succeeded") {
    message = `${what}; it cannot be interrupted, so the host waited for it: it completed after the limit and its effects (if any) are in place`;
  } else {
    message = `${what}; it cannot be interrupted, so the host waited for it: it then failed with ${late.code}: ${late.message}`;
  }
  const error = new ToolhostError4({
    code: ending === "timeout" ? "TIMEOUT" : "ABORTED",
    message,
    details: {
      toolName: tool.name,
      timeoutMs,
      abortable: tool.execution.abortable,
      ...late === void 0 ? {} : { lateOutcome: late === "succeeded" ? "succeeded" : late.code }
    }
  });
  return output === void 0 ? { ok: false, error } : { ok: false, error, output };
}
function normaliseResult(toolName, value) {
  if (typeof value === "object" && value !== null) {
    const result = value;
    if (result.ok === true && isOutput(result.output)) return value;
    if (result.ok === false && ToolhostError4.isInstance(result.error)) {
      return result.output === void 0 || isOutput(result.output) ? value : { ok: false, error: result.error };
    }
  }
  return {
    ok: false,
    error: new ToolhostError4({
      code: "EXECUTION_ERROR",
      message: `"${toolName}" returned a malformed result (expected { ok, output } or { ok: false, error })`,
      recovery: "report it; the tool must be fixed"
    })
  };
}
function isOutput(output) {
  return typeof output === "object" && output !== null && Array.isArray(output.content);
}

// src/shape-result.ts
import {
  errorMessage as errorMessage2,
  ToolhostError as ToolhostError5,
  utf8BoundaryAfter,
  utf8BoundaryBefore as utf8BoundaryBefore2
} from "@toolhost/contracts";
var MAX_MODEL_RESULT_BYTES = 32 * 1024;
var RESULT_BUDGETS = {
  shell: { head: 8e3, tail: 8e3 },
  read: { head: 14e3, tail: 0 },
  search: { head: 1e4, tail: 1e3 },
  default: { head: 12e3, tail: 2e3 }
};
var PAGE_LIMIT = 16384;
async function shapeResultText(options) {
  const maxBytes = options.maxBytes ?? MAX_MODEL_RESULT_BYTES;
  const size = Buffer.byteLength(options.text, "utf8");
  if (size <= maxBytes) {
    return { text: options.text, truncated: false, resultRef: null, originalBytes: size, keptBytes: size };
  }
  const bytes = Buffer.from(options.text, "utf8");
  let stored;
  let storeError;
  let storeFailure;
  if (options.store) {
    try {
      stored = await options.store.put({
        callId: options.callId,
        toolName: options.toolName,
        body: options.text
      });
    } catch (error) {
      storeError = errorMessage2(error);
      storeFailure = ToolhostError5.isInstance(error) ? error.toModelText() : void 0;
    }
  } else {
    storeError = "no result store is configured";
  }
  const shaping = storeFailure === void 0 ? options : { ...options, storeFailure };
  const shaped = options.shape === "read" ? cutPrefix(bytes, shaping, stored, maxBytes) : cutHeadTail(bytes, shaping, stored, maxBytes);
  return storeError === void 0 ? shaped : { ...shaped, storeError };
}
function budgetsFor(shape, failed, maxBytes) {
  const base = RESULT_BUDGETS[shape];
  let { head, tail } = base;
  const total = head + tail;
  if (failed && tail < total / 3) {
    tail = Math.ceil(total / 3);
    head = total - tail;
  }
  const room = Math.max(256, maxBytes - 1200);
  if (head + tail > room) {
    const scale = room / (head + tail);
    head = Math.floor(head * scale);
    tail = Math.floor(tail * scale);
  }
  return { head, tail };
}
function cutHeadTail(bytes, options, stored, maxBytes) {
  let { head, tail } = budgetsFor(options.shape, options.failed, maxBytes);
  let text = "";
  let kept = 0;
  for (let pass = 0; pass < 4; pass++) {
    const headEnd = preferLineEnd(bytes, utf8BoundaryBefore2(bytes, head), 0.75);
    const tailFrom = utf8BoundaryAfter(bytes, bytes.length - tail);
    const tailStart = Math.max(headEnd, preferLineStart(bytes, tailFrom, bytes.length));
    kept = headEnd + (bytes.length - tailStart);
    const marker = truncationMarker({
      options,
      stored,
      originalBytes: bytes.length,
      keptBytes: kept,
      omittedFrom: headEnd,
      omittedTo: tailStart
    });
    text = `${bytes.subarray(0, headEnd).toString("utf8")}${marker}${bytes.subarray(tailStart).toString("utf8")}`;
    const over = Buffer.byteLength(text) - maxBytes;
    if (over <= 0) break;
    head = Math.max(0, head - Math.ceil(over / 2) - 64);
    tail = Math.max(0, tail - Math.ceil(over / 2) - 64);
  }
  return {
    text,
    truncated: true,
    resultRef: stored?.resultRef ?? null,
    originalBytes: bytes.length,
    keptBytes: kept
  };
}
function cutPrefix(bytes, options, stored, maxBytes) {
  let budget = budgetsFor("read", false, maxBytes).head;
  let text = "";
  let end = 0;
  let nextOffset;
  for (let pass = 0; pass < 4; pass++) {
    end = lineEndBefore(bytes, budget);
    const prefix = bytes.subarray(0, end).toString("utf8");
    nextOffset = lastLineNumber(prefix);
    const marker = readMarker({ options, stored, originalBytes: bytes.length, keptBytes: end, nextOffset });
    text = prefix + marker;
    const size = Buffer.byteLength(text);
    if (size <= maxBytes) break;
    budget -= size - maxBytes + 64;
  }
  return {
    text,
    truncated: true,
    resultRef: stored?.resultRef ?? null,
    originalBytes: bytes.length,
    keptBytes: end,
    ...nextOffset === void 0 ? {} : { nextOffset }
  };
}
function recipe(callId, stored, offset, storeFailure) {
  if (!stored) {
    const why = storeFailure === void 0 ? "" : ` (${boundedField(storeFailure, 300)})`;
    return `The full original could not be kept${why}; re-run the original tool with narrower arguments.`;
  }
  const args = JSON.stringify({
    tool_call_id: callId,
    result_ref: stored.resultRef,
    offset,
    limit: PAGE_LIMIT
  });
  return `The full original is kept locally (sha256 ${stored.sha256}). Read it by UTF-8 byte offset with use_capability(action="call", capability_id="session:tool_result", arguments=${args}), following next_offset until complete is true. If use_capability is unavailable, re-run the original tool with narrower arguments.`;
}
function truncationMarker(input) {
  const { options, stored } = input;
  const callId = markerCallId(options.callId);
  return `

[output truncated by the host: tool=${boundedField(options.toolName)} call_id=${callId.shown} result_ref=${stored?.resultRef ?? "none"} original_bytes=${input.originalBytes} kept_bytes=${input.keptBytes}; bytes ${input.omittedFrom}..${input.omittedTo} are omitted here. ${recipe(callId.exact, stored, input.omittedFrom, options.storeFailure)}]

`;
}
function readMarker(input) {
  const { options, stored } = input;
  const callId = markerCallId(options.callId);
  const resume = input.nextOffset === void 0 ? "Continue by calling read_file again with a larger offset." : `Continue with read_file offset=${input.nextOffset} (next_offset=${input.nextOffset}).`;
  return `
[INCOMPLETE READ: the host cut this window at a line boundary to fit the result limit: tool=${boundedField(options.toolName)} call_id=${callId.shown} result_ref=${stored?.resultRef ?? "none"} original_bytes=${input.originalBytes} kept_bytes=${input.keptBytes}. Lines after the last one shown were not read into context. ${resume} ${recipe(callId.exact, stored, input.keptBytes, options.storeFailure)}]`;
}
function markerCallId(callId) {
  if (Buffer.byteLength(callId) > 256)
    return { shown: "(call id too long to show)", exact: "(call id too long to show)" };
  return { shown: boundedField(callId), exact: callId };
}
function boundedField(text, maxBytes = 128) {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const bytes = Buffer.from(text, "utf8");
  return `${bytes.subarray(0, utf8BoundaryBefore2(bytes, maxBytes - 3)).toString("utf8")}...`;
}
function preferLineEnd(bytes, end, keep) {
  const newline = bytes.lastIndexOf(10, end - 1);
  return newline >= 0 && newline + 1 >= end * keep ? newline + 1 : end;
}
function preferLineStart(bytes, start, length) {
  if (start > 0 && bytes[start - 1] === 10) return start;
  const newline = bytes.indexOf(10, start);
  return newline >= 0 && newline + 1 - start <= (length - start) / 4 ? newline + 1 : start;
}
function lineEndBefore(bytes, budget) {
  const limit = Math.min(Math.max(budget, 0), bytes.length);
  const newline = bytes.lastIndexOf(10, limit - 1);
  return newline >= 0 ? newline + 1 : utf8BoundaryBefore2(bytes, limit);
}
function lastLineNumber(prefix) {
  const lines = prefix.split("\n");
  for (let index = lines.length - 1; index >= 0; index--) {
    const match = /^\s*(\d+)(?:→|\t|: |\| )/.exec(lines[index]);
    if (match) return Number(match[1]);
  }
  return void 0;
}

// src/execute-call.ts
var MAX_NOTES_BYTES = 8 * 1024;
function blocked(message, details) {
  return new ToolhostError6({ code: "HOOK_BLOCKED", message, details });
}
async function executePreparedCall(context, call, options, slot = { shared: false }) {
  const { signal: cancel, release } = anySignal([options.signal, context.closeSignal]);
  try {
    return await runCallSteps(context, call, options, slot, cancel);
  } finally {
    release();
  }
}
async function runCallSteps(context, call, options, slot, cancel) {
  const notes = [];
  const scope = { callId: call.callId, hooked: /* @__PURE__ */ new Set(), mcpTargets: [], notes };
  let current = call;
  let permission;
  let replacements = 0;
  let pendingAsk;
  const done = (result, extra = {}) => ({
    result,
    ...permission ? { permission } : {},
    call: extra.call ?? current,
    ...notes.length > 0 ? { notes } : {},
    ...extra.stop ? { stop: extra.stop } : {}
  });
  const replace = (name, args, by) => {
    replacements++;
    permission = void 0;
    if (replacements > MAX_CALL_REPLACEMENTS) {
      return done({
        ok: false,
        error: blocked(
          `the call was replaced more than ${MAX_CALL_REPLACEMENTS} times by extensions and hooks; nothing was run`,
          { toolName: current.tool.name, replacedBy: by }
        )
      });
    }
    const next = resolveCall(context, {
      callId: call.callId,
      name,
      arguments: args,
      startedAt: call.startedAt,
      replacement: { round: replacements, by }
    });
    if (next.kind === "failed") return done({ ok: false, error: next.error }, { call: next });
    if (slot.shared && !next.parallel) {
      return done(
        {
          ok: false,
          error: blocked(
            `"${by}" replaced a read-only call with "${next.tool.name}", which must run alone; it was not run beside the other calls of this turn`,
            { toolName: next.tool.name, replacedBy: by }
          )
        },
        { call: next }
      );
    }
    current = next;
    return void 0;
  };
  for (; ; ) {
    const { tool, callId } = current;
    if (context.extensions.length > 0) {
      const before = await runBeforeExtensions(context, current, cancel);
      if (before.kind === "deny") {
        return done(
          { ok: false, error: blocked(before.reason, { toolName: tool.name, blockedBy: before.by }) },
          before.stop ? { stop: before.stop } : {}
        );
      }
      if (before.kind === "replace" && !(before.name === tool.name && sameJson(before.arguments, current.args))) {
        const refused = replace(before.name, before.arguments, before.by);
        if (refused) return refused;
        continue;
      }
      if (before.kind === "continue") notes.push(...before.notes);
      if (before.kind === "continue" && before.ask !== void 0)
        pendingAsk ??= { reason: before.ask, source: "extension" };
    }
    const facts = toolFacts(tool);
    const permitted = await permitCall(context, facts, {
      callId,
      invocation: current.invocation,
      tool,
      args: current.args,
      signal: options.signal
    });
    permission = permitted.decision;
    if (permitted.error) return done({ ok: false, error: permitted.error });
    if (!scope.hooked.has(tool.name)) {
      scope.hooked.add(tool.name);
      const pre = await runToolHooks(
        context,
        "PreToolUse",
        { toolName: tool.name, toolInput: current.args, callId },
        cancel
      );
      if (pre) {
        for (const text of pre.additionalContext) notes.push(contextNote("PreToolUse hook", text));
        if (pre.stop) {
          return done(
            {
              ok: false,
              error: blocked(`a PreToolUse hook stopped the session's work; "${tool.name}" was not run`, {
                toolName: tool.name,
                blockedBy: "hook:PreToolUse"
              })
            },
            { stop: { reason: pre.stop.reason, by: "hook:PreToolUse" } }
          );
        }
        if (pre.decision === "deny" || pre.invalid) {
          const reasons = pre.denyReasons.filter((reason) => reason !== "");
          return done({
            ok: false,
            error: blocked(
              `a PreToolUse hook refused "${tool.name}": ${reasons.join("; ") || (pre.invalid ?? "no reason given")}`,
              { toolName: tool.name, blockedBy: "hook:PreToolUse" }
            )
          });
        }
        if (pre.decision === "ask") pendingAsk ??= { reason: pre.askReasons.join("; "), source: "hook" };
        if (pre.updatedInput && !sameJson(pre.updatedInput, current.args)) {
          const refused = replace(tool.name, pre.updatedInput, "hook:PreToolUse");
          if (refused) return refused;
          continue;
        }
      }
    }
    if (pendingAsk) {
      const asked = await askPerson(
        context,
        facts,
        {
          type: "ask",
          source: pendingAsk.source,
          reason: pendingAsk.reason || `a ${pendingAsk.source} asks a person to confirm this call`
        },
        {
          callId,
          invocation: current.invocation,
          subject: safely(() => tool.definition.permission?.subject?.(current.args)),
          preview: safely(() => tool.definition.permission?.preview?.(current.args)),
          paths: [],
          signal: options.signal
        }
      );
      pendingAsk = void 0;
      if (asked.error) {
        permission = asked.decision;
        return done({ ok: false, error: asked.error });
      }
    }
    if (cancel.aborted) {
      return done({
        ok: false,
        error: new ToolhostError6({
          code: "ABORTED",
          message: `"${tool.name}" was cancelled before it started`
        })
      });
    }
    context.audit.emit("call-started", {
      callId,
      toolName: tool.name,
      mode: tool.definition.execution.mode,
      timeoutMs: tool.definition.execution.timeoutMs,
      abortable: tool.definition.execution.abortable
    });
    const progress = options.onProgress;
    delete scope.replacement;
    scope.mcpTargets.length = 0;
    if (tool.name === USE_CAPABILITY) scope.envelope = current.args;
    else delete scope.envelope;
    const outcome = await executionScope.run(
      scope,
      () => runTool({
        tool: tool.definition,
        args: current.args,
        callId,
        invocation: current.invocation,
        signal: cancel,
        sessionId: context.sessionId,
        ...options.turn ? { turn: options.turn } : {},
        ...permitted.resolvedPaths?.length ? { resolvedPaths: permitted.resolvedPaths } : {},
        ...progress ? { onProgress: (report) => progress({ ...report, callId }) } : {},
        ...context.onStraggler ? { onStraggler: context.onStraggler } : {}
      })
    );
    const seam = scope;
    if (seam.stop) return done(outcome.result, { stop: seam.stop });
    if (seam.replacement && tool.name === USE_CAPABILITY) {
      const refused = replace(USE_CAPABILITY, seam.replacement.arguments, seam.replacement.by);
      if (refused) return refused;
      continue;
    }
    return finishCall(context, current, outcome.result, { notes, scope, cancel, done });
  }
}
async function finishCall(context, call, result, input) {
  const { notes, scope } = input;
  let stop;
  const targets = [
    { name: call.tool.name, input: call.args },
    ...scope.mcpTargets.map((target) => ({ name: target.name, input: target.input }))
  ].filter((target) => context.hooks?.matches("PostToolUse", target.name) === true);
  const observed = context.extensions.some((extension) => extension.afterCall !== void 0);
  const response = targets.length > 0 || observed ? toolResponseOf(result) : void 0;
  for (const target of targets) {
    const post = await runToolHooks(
      context,
      "PostToolUse",
      { toolName: target.name, toolInput: target.input, callId: call.callId, toolResponse: response },
      // The call ran: its hooks still run when the call itself was cancelled at the end.
      context.closeSignal
    );
    if (!post) continue;
    for (const reason of post.denyReasons)
      if (reason) notes.push(contextNote("PostToolUse hook feedback", reason));
    for (const text of post.additionalContext) notes.push(contextNote("PostToolUse hook", text));
    if (post.stop) stop ??= { reason: post.stop.reason, by: "hook:PostToolUse" };
  }
  if (observed && response) {
    const after = await runAfterExtensions(context, call, response, input.cancel);
    notes.push(...after.notes);
    stop ??= after.stop;
  }
  return input.done(result, stop ? { stop } : {});
}
function sameJson(a, b) {
  return stableJson(a) === stableJson(b);
}
function stableJson(value) {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
function safely(work) {
  try {
    return work();
  } catch {
    return void 0;
  }
}
async function runPreparedCall(context, call, options, batchId, slot = { shared: false }) {
  if (call.kind === "failed")
    return finalizeExecutedCall(context, call, { result: { ok: false, error: call.error } }, batchId);
  let executed;
  try {
    executed = await executePreparedCall(context, call, options, slot);
  } catch (error) {
    executed = {
      result: {
        ok: false,
        error: new ToolhostError6({
          code: "EXECUTION_ERROR",
          message: "the host failed while running this call",
          cause: error
        })
      }
    };
  }
  return finalizeExecutedCall(context, call, executed, batchId);
}
async function finalizeExecutedCall(context, proposed, executed, batchId) {
  const { result } = executed;
  const { audit } = context;
  const call = executed.call ?? proposed;
  const toolName = call.kind === "ready" ? call.tool.name : call.toolName;
  const shapeKind = call.kind === "ready" ? call.tool.definition.resultShape ?? "default" : "default";
  const notesText = boundNotes(executed.notes);
  const notesBytes = notesText === "" ? 0 : Buffer.byteLength(notesText, "utf8") + 2;
  const bodyText = outputText2(result.output);
  const text = result.ok ? bodyText : bodyText ? `${result.error.toModelText()}

${bodyText}` : result.error.toModelText();
  const shaped = await shapeResultText({
    text,
    shape: shapeKind,
    failed: !result.ok,
    callId: call.callId,
    toolName: toolName ?? boundedName(call.name),
    store: context.resultStore,
    // Notes from hooks and extensions follow the result, within the model's budget.
    ...notesBytes > 0 ? { maxBytes: MAX_MODEL_RESULT_BYTES - notesBytes } : {}
  });
  const modelText = notesText === "" ? shaped.text : shaped.text === "" ? notesText : `${shaped.text}

${notesText}`;
  if (shaped.truncated) {
    audit.emit("result-stored", {
      callId: call.callId,
      toolName: toolName ?? void 0,
      resultRef: shaped.resultRef,
      originalBytes: shaped.originalBytes,
      keptBytes: shaped.keptBytes,
      ...shaped.storeError ? { storeError: shaped.storeError } : {}
    });
  }
  const otherBlocks = (result.output?.content ?? []).filter((block) => block.type !== "text");
  const content = modelText !== "" || otherBlocks.length === 0 ? [{ type: "text", text: modelText }, ...otherBlocks] : [...otherBlocks];
  const durationMs = Math.round((performance.now() - call.startedAt) * 1e3) / 1e3;
  const error = result.ok ? null : result.error.toJSON();
  audit.emit("call-finished", {
    callId: call.callId,
    ...batchId ? { batchId } : {},
    ...toolName ? { toolName } : {},
    ...call.kind === "ready" && call.invocation.kind === "capability" ? { capabilityId: call.invocation.capabilityId } : {},
    status: result.ok ? "ok" : "error",
    ...error ? { code: error.code } : {},
    ...!result.ok && result.error.code === "ARGUMENT_VALIDATION" && result.error.signature ? { validationId: result.error.signature } : {},
    durationMs,
    outputBytes: shaped.originalBytes,
    truncated: shaped.truncated,
    resultRef: shaped.resultRef,
    ...call !== proposed ? { replaced: true } : {},
    ...executed.stop ? { stop: executed.stop.by } : {}
  });
  const details = result.output?.details;
  const dispatched = {
    id: call.callId,
    name: proposed.name,
    toolName,
    status: result.ok ? "ok" : "error",
    output: modelText,
    content,
    error,
    resultRef: shaped.resultRef,
    truncated: shaped.truncated,
    ...details ? { details } : {},
    ...result.output?.untrusted ? { untrusted: true } : {},
    ...executed.permission ? { permission: executed.permission } : {},
    ...executed.stop ? { stop: executed.stop } : {},
    durationMs
  };
  return { result: dispatched, error: result.ok ? void 0 : result.error, call };
}
function boundNotes(notes) {
  if (!notes || notes.length === 0) return "";
  const text = notes.join("\n");
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= MAX_NOTES_BYTES) return text;
  const end = utf8BoundaryBefore3(bytes, MAX_NOTES_BYTES - 3);
  return `${bytes.subarray(0, end).toString("utf8")}...`;
}
function anySignal(signals) {
  const present = signals.filter((signal) => signal !== void 0);
  if (present.length === 1) return { signal: present[0], release: () => void 0 };
  const fired = present.find((signal) => signal.aborted);
  if (fired) return { signal: AbortSignal.abort(fired.reason), release: () => void 0 };
  const controller = new AbortController();
  const listeners = present.map((signal) => {
    const listener = () => controller.abort(signal.reason);
    signal.addEventListener("abort", listener, { once: true });
    return [signal, listener];
  });
  return {
    signal: controller.signal,
    release: () => {
      for (const [signal, listener] of listeners) signal.removeEventListener("abort", listener);
    }
  };
}

// src/dispatch-batch.ts
async function dispatchBatch(context, calls, options = {}) {
  const batchId = `batch_${++context.counters.batch}`;
  context.audit.emit("batch-received", { batchId, calls: calls.length });
  const prepared = calls.map((call) => prepareCall(context, call, batchId, options.traceparent));
  const finished = new Array(prepared.length);
  let stop;
  const run = async (position, shared) => {
    const call = prepared[position];
    if (stop && call.kind === "ready") {
      const error = new ToolhostError7({
        code: "HOOK_BLOCKED",
        message: `an earlier call of this turn was stopped (${stop.by}), so "${call.tool.name}" was not run`,
        details: { toolName: call.tool.name, blockedBy: stop.by }
      });
      return finalizeExecutedCall(context, call, { result: { ok: false, error } }, batchId);
    }
    const done = await runPreparedCall(context, call, options, batchId, { shared });
    stop ??= done.result.stop;
    return done;
  };
  let index = 0;
  while (index < prepared.length) {
    const current = prepared[index];
    const parallel = current.kind === "failed" || current.parallel;
    if (!parallel) {
      finished[index] = await run(index, false);
      index++;
      continue;
    }
    let end = index;
    while (end < prepared.length) {
      const next = prepared[end];
      if (next.kind === "ready" && !next.parallel) break;
      end++;
    }
    const shared = end - index > 1;
    let cursor = index;
    const worker = async () => {
      while (cursor < end) {
        const mine = cursor++;
        finished[mine] = await run(mine, shared);
      }
    };
    await Promise.all(Array.from({ length: Math.min(MAX_PARALLEL_CALLS, end - index) }, worker));
    index = end;
  }
  const results = finished.map((entry) => entry.result);
  const notice = context.stormBreaker.observe(finished.map((entry) => stormOutcome(entry, entry.call)));
  if (notice) {
    context.audit.emit("loop-guard-noticed", {
      batchId,
      kind: notice.kind,
      count: notice.count,
      calls: calls.length
    });
  }
  context.audit.emit("batch-finished", {
    batchId,
    calls: calls.length,
    failed: results.filter((result) => result.status === "error").length,
    ...stop ? { stoppedBy: stop.by } : {}
  });
  return { results, ...notice ? { notice: notice.text } : {}, ...stop ? { stop } : {} };
}
async function dispatchCall(context, call, options = {}) {
  const batch = await dispatchBatch(context, [call], options);
  const result = batch.results[0];
  return batch.notice ? { ...result, notice: batch.notice } : result;
}
async function authorizeTarget(context, target, hook = { toolInput: {} }) {
  const permitted = await permitCall(context, target, {
    callId: target.callId,
    invocation: target.invocation,
    subject: target.subject,
    preview: target.preview,
    signal: target.signal
  });
  if (permitted.error) return { allowed: false, error: permitted.error };
  const active = executionScope.getStore();
  const scope = active && active.callId === target.callId ? active : void 0;
  const refuse = (message) => ({
    allowed: false,
    error: new ToolhostError7({
      code: "HOOK_BLOCKED",
      message,
      details: { toolName: target.name, blockedBy: "hook:PreToolUse", remoteDispatched: false }
    })
  });
  if (!scope?.hooked.has(target.name)) {
    scope?.hooked.add(target.name);
    const pre = await runToolHooks(
      context,
      "PreToolUse",
      { toolName: target.name, toolInput: hook.toolInput, callId: target.callId },
      target.signal
    );
    if (pre) {
      for (const text of pre.additionalContext) scope?.notes.push(contextNote("PreToolUse hook", text));
      if (pre.stop) {
        if (scope) scope.stop = { reason: pre.stop.reason, by: "hook:PreToolUse" };
        return refuse(`a PreToolUse hook stopped the session's work; "${target.name}" was not run`);
      }
      if (pre.decision === "deny" || pre.invalid) {
        const reasons = pre.denyReasons.filter((reason) => reason !== "");
        return refuse(
          `a PreToolUse hook refused "${target.name}": ${reasons.join("; ") || (pre.invalid ?? "no reason given")}`
        );
      }
      if (pre.updatedInput && !sameJson(pre.updatedInput, hook.toolInput)) {
        if (!scope?.envelope || !hook.rewrite) {
          return refuse(
            `a PreToolUse hook rewrote the input of "${target.name}", which cannot be rewritten here; nothing was run`
          );
        }
        scope.replacement = {
          arguments: hook.rewrite(pre.updatedInput, scope.envelope),
          by: "hook:PreToolUse"
        };
        return refuse(
          `a PreToolUse hook rewrote the input of "${target.name}"; the rewritten call is checked again`
        );
      }
      if (pre.decision === "ask") {
        const asked = await askPerson(
          context,
          target,
          {
            type: "ask",
            source: "hook",
            reason: pre.askReasons.join("; ") || "a PreToolUse hook asks a person to confirm"
          },
          {
            callId: target.callId,
            invocation: target.invocation,
            subject: target.subject,
            preview: target.preview,
            paths: [],
            signal: target.signal
          }
        );
        if (asked.error) return { allowed: false, error: asked.error };
      }
    }
  }
  return { allowed: true };
}
function stormOutcome({ result, error }, call) {
  return {
    toolName: result.toolName ?? result.name,
    ok: result.status === "ok",
    // Only reads and searches repeat to no effect: polling a job or re-running a command may not.
    ...call.kind === "ready" && result.status === "ok" && (call.tool.definition.category === "read" || call.tool.definition.category === "search") ? { argumentsKey: stableJson2(call.args), output: result.output } : {},
    ...error ? {
      error: {
        code: error.code,
        message: error.message,
        signature: error.signature,
        details: error.details
      }
    } : {}
  };
}
function stableJson2(value) {
  if (Array.isArray(value)) return `[${value.map(stableJson2).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${stableJson2(value[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

// src/session-approvals.ts
function createSessionApprovals() {
  const names = /* @__PURE__ */ new Set();
  const prefixRules = [];
  const exact = /* @__PURE__ */ new Map();
  const order = [];
  let rules;
  return {
    covers(toolName, subject, shell) {
      if (!shell) return names.has(toolName) ? toolName : void 0;
      if (subject === void 0) return void 0;
      const same = exact.get(`${toolName}\0${subject}`);
      if (same !== void 0) return same;
      if (prefixRules.length === 0) return void 0;
      rules ??= createPermissionRules({ allow: prefixRules });
      const match = rules.match(toolName, subject);
      return match?.effect === "allow" ? match.rule : void 0;
    },
    remember(approval) {
      if (approval.kind === "exact") {
        if (approval.subject === void 0) return;
        const toolName = approval.text.slice(0, approval.text.indexOf("("));
        const label = `${toolName}(exact command)`;
        exact.set(`${toolName}\0${approval.subject}`, label);
        order.push(label);
        return;
      }
      if (order.includes(approval.text)) return;
      order.push(approval.text);
      if (approval.kind === "tool") names.add(approval.text);
      else {
        prefixRules.push(approval.text);
        rules = void 0;
      }
    },
    list: () => [...order]
  };
}

// src/session-store.ts
import { randomBytes } from "crypto";
import {
  closeSync as closeSync2,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync as mkdirSync2,
  openSync as openSync2,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync
} from "fs";
import { join } from "path";
import { ToolhostError as ToolhostError8 } from "@toolhost/contracts";
var SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$/;
var DEFAULT_SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1e3;
var DEFAULT_SESSIONS_MAX_BYTES = 2 * 1024 * 1024 * 1024;
var SNAPSHOT_FILE = "snapshot.json";
var OWNER_FILE = "owner.json";
function newSessionId() {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  const bytes = randomBytes(20);
  let id = "ses_";
  for (const byte of bytes) id += alphabet[byte & 31];
  return id;
}
function checkSessionId(id) {
  if (typeof id !== "string" || !SESSION_ID_PATTERN.test(id)) {
    throw new ToolhostError8({
      code: "CONFIG_INVALID",
      message: 'options: session id: expected 1 to 80 letters, digits, "_" or "-" (such as ses_ab12...)',
      details: { source: "options", field: "sessionId" }
    });
  }
  return id;
}
function ensureStateDir(stateDir) {
  mkdirSync2(stateDir, { recursive: true, mode: 448 });
  const ignore = join(stateDir, ".gitignore");
  if (!existsSync(ignore)) {
    try {
      writeFileSync(ignore, "*\n", { mode: 384, flag: "wx" });
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
  }
}
function sessionDir(stateDir, id) {
  return join(stateDir, "sessions", id);
}
function writeSessionSnapshot(dir, snapshot) {
  mkdirSync2(dir, { recursive: true, mode: 448 });
  const target = join(dir, SNAPSHOT_FILE);
  const temporary = join(dir, `.${SNAPSHOT_FILE}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync2(temporary, "wx", 384);
  try {
    writeSync(fd, JSON.stringify(snapshot));
    fsyncSync(fd);
  } finally {
    closeSync2(fd);
  }
  try {
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
function readSessionSnapshot(dir) {
  let text;
  try {
    text = readFileSync(join(dir, SNAPSHOT_FILE), "utf8");
  } catch (error) {
    if (error.code === "ENOENT") return void 0;
    throw error;
  }
  return JSON.parse(text);
}
function processStartTime(pid) {
  if (process.platform !== "linux") return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}
function ownerAlive(owner) {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if (error.code === "ESRCH") return false;
  }
  return owner.startTime === null || processStartTime(owner.pid) === owner.startTime;
}
var openInProcess = /* @__PURE__ */ new Set();
function claimSessionDir(dir, id) {
  if (openInProcess.has(dir)) throw sessionInUse(id);
  mkdirSync2(dir, { recursive: true, mode: 448 });
  const file = join(dir, OWNER_FILE);
  const owner = readOwner(file);
  if (owner && owner.pid !== process.pid && ownerAlive(owner)) throw sessionInUse(id);
  const mine = { pid: process.pid, startTime: processStartTime(process.pid) };
  writeFileSync(file, JSON.stringify(mine), { mode: 384 });
  openInProcess.add(dir);
  return () => {
    openInProcess.delete(dir);
    const current = readOwner(file);
    if (current?.pid === process.pid) rmSync(file, { force: true });
  };
}
function readOwner(file) {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8"));
    return typeof parsed.pid === "number" ? { pid: parsed.pid, startTime: typeof parsed.startTime === "string" ? parsed.startTime : null } : void 0;
  } catch {
    return void 0;
  }
}
function sessionInUse(id) {
  return new ToolhostError8({
    code: "SESSION_IN_USE",
    message: `session ${id} is open in a running toolhost process`,
    recovery: "close that process first, or start a new session",
    details: { sessionId: id }
  });
}
function pruneSessions(stateDir, options) {
  const root = join(stateDir, "sessions");
  let names;
  try {
    names = readdirSync(root);
  } catch {
    return { removed: [], keptBytes: 0 };
  }
  const now = options.now ?? Date.now();
  const entries = [];
  for (const id of names) {
    if (!SESSION_ID_PATTERN.test(id)) continue;
    const dir = join(root, id);
    let stat;
    try {
      stat = lstatSync(dir);
    } catch {
      continue;
    }
    if (!stat.isDirectory()) continue;
    const owner = readOwner(join(dir, OWNER_FILE));
    const busy = openInProcess.has(dir) || owner !== void 0 && ownerAlive(owner);
    const usage = directoryUsage(dir);
    entries.push({ id, dir, lastActive: Math.max(stat.mtimeMs, usage.newest), bytes: usage.bytes, busy });
  }
  const removed = [];
  const remove = (entry) => {
    try {
      rmSync(entry.dir, { recursive: true, force: true });
      removed.push(entry.id);
      return true;
    } catch {
      return false;
    }
  };
  const survivors = entries.filter(
    (entry) => entry.busy || now - entry.lastActive <= options.maxAgeMs || !remove(entry)
  );
  let total = survivors.reduce((sum, entry) => sum + entry.bytes, 0);
  for (const entry of [...survivors].sort((a, b) => a.lastActive - b.lastActive)) {
    if (total <= options.maxBytes) break;
    if (entry.busy) continue;
    if (remove(entry)) total -= entry.bytes;
  }
  return { removed, keptBytes: total };
}
function directoryUsage(dir) {
  let bytes = 0;
  let newest = 0;
  let budget = 1e5;
  const walk = (current) => {
    let children;
    try {
      children = readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const child of children) {
      if (--budget < 0) return;
      const path = join(current, child.name);
      if (child.isDirectory()) walk(path);
      else {
        try {
          const stat = statSync(path);
          bytes += stat.size;
          newest = Math.max(newest, stat.mtimeMs);
        } catch {
        }
      }
    }
  };
  walk(dir);
  return { bytes, newest };
}

// src/storm-breaker.ts
import { boundedText as boundedText2, ERROR_CODES, firstLine, isErrorCode as isErrorCode3 } from "@toolhost/contracts";
function stormCategory(error) {
  if (error.signature?.startsWith("argument_validation:")) return error.signature;
  const text = `${error.message}`;
  const exitCode = error.details?.exitCode;
  if (typeof exitCode === "number") return `tool:exit:${exitCode}`;
  const exit = /\bexit(?:ed)?(?: with)? (?:status|code)[ :=]*(-?\d+)/i.exec(text);
  if (exit) return `tool:exit:${Number(exit[1])}`;
  if (error.code === "TIMEOUT" || /\b(timed? ?out|timeout|deadline exceeded)\b/i.test(text)) {
    return "tool:transient:timeout";
  }
  if (error.code === "MCP_CONNECT_FAILED" || /\b(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|connection (refused|reset|closed|lost))\b/i.test(
    text
  )) {
    return "tool:transient:connection";
  }
  if (/fail/i.test(text) && /test/i.test(text)) return "tool:test_failure";
  return error.signature ? `tool:${error.code}:${error.signature}` : `tool:${error.code}`;
}
function kindOf(code) {
  return isErrorCode3(code) ? ERROR_CODES[code].kind : void 0;
}
function createStormBreaker(options = {}) {
  const threshold = options.threshold ?? 3;
  const repeatThreshold = options.repeatThreshold ?? 4;
  let failedSignature = "";
  let failedCount = 0;
  let blockedCount = 0;
  let blockedSignatures = [];
  let repeatedKey;
  let repeatedCount = 0;
  const observeRepeat = (batch) => {
    const key = batch.flatMap((outcome) => [outcome.toolName, outcome.argumentsKey, outcome.output]);
    const comparable = batch.every(
      (outcome) => outcome.argumentsKey !== void 0 && outcome.output !== void 0
    );
    if (!comparable) {
      repeatedKey = void 0;
      repeatedCount = 0;
      return void 0;
    }
    const same = repeatedKey !== void 0 && repeatedKey.length === key.length && repeatedKey.every((part, index) => part === key[index]);
    repeatedCount = same ? repeatedCount + 1 : 1;
    repeatedKey = key;
    if (repeatedCount < repeatThreshold) return void 0;
    const first = batch[0];
    const who = batch.length === 1 ? `"${boundedText2(first.toolName)}"` : `this batch of ${batch.length} tool calls`;
    return {
      kind: "repeated",
      count: repeatedCount,
      signature: batch.map((outcome) => outcome.toolName).join("\0"),
      text: [
        `[loop guard] ${who} has now been called ${repeatedCount} times in a row with the same arguments and returned the same output each time. Calling it again will not change the result.`,
        "Use the output you already have, change the arguments, or take the next step (or stop and report what you found)."
      ].join("\n")
    };
  };
  return {
    observe(batch) {
      if (batch.length === 0) return void 0;
      const repeated = observeRepeat(batch);
      if (batch.some((outcome) => outcome.ok || !outcome.error)) {
        failedSignature = "";
        failedCount = 0;
        blockedCount = 0;
        blockedSignatures = [];
        return repeated;
      }
      const categories = batch.map((outcome) => stormCategory(outcome.error));
      const signature = batch.map((outcome, index) => `${outcome.toolName}\0${categories[index]}`).join("\0");
      if (signature === failedSignature) failedCount++;
      else {
        failedSignature = signature;
        failedCount = 1;
      }
      const allBlocked = batch.every((outcome) => kindOf(outcome.error.code) === "blocked");
      blockedCount = allBlocked ? blockedCount + 1 : 0;
      blockedSignatures = allBlocked ? [...blockedSignatures.slice(-(threshold - 1)), signature] : [];
      if (blockedCount >= threshold) {
        const same = blockedSignatures.every((entry) => entry === signature);
        return {
          kind: "blocked",
          count: blockedCount,
          signature,
          text: same ? guidance("blocked", blockedCount, batch, categories) : blockedGuidance(blockedCount, batch)
        };
      }
      if (failedCount >= threshold) {
        return {
          kind: "failed",
          count: failedCount,
          signature,
          text: guidance("failed", failedCount, batch, categories)
        };
      }
      return void 0;
    },
    reset() {
      failedSignature = "";
      failedCount = 0;
      blockedCount = 0;
      blockedSignatures = [];
      repeatedKey = void 0;
      repeatedCount = 0;
    },
    get streak() {
      return failedCount;
    }
  };
}
function guidance(kind, count, batch, categories) {
  const first = batch[0];
  const who = batch.length === 1 ? `"${boundedText2(first.toolName)}"` : `this batch of ${batch.length} tool calls`;
  const what = kind === "failed" ? "failed" : "been blocked or failed";
  const lines = [
    `[loop guard] ${who} has now ${what} ${count} times in a row with the same host response. Re-sending it \u2014 even with the wording changed \u2014 will not help.`,
    `Host response: ${boundedText2(`${first.error.code}: ${firstLine(first.error.message)}`, 512)}`
  ];
  const codes = new Set(batch.map((outcome) => outcome.error.code));
  if (kind === "blocked") {
    lines.push(
      "The run policy refuses this action. Choose a different approach that the run allows, or stop and explain to the user what you need."
    );
  } else if (categories.every((category) => category.startsWith("argument_validation:"))) {
    if (categories.some((category) => category.endsWith(":schema")) || codes.has("HOST_CONFIGURATION")) {
      lines.push(
        "The tool itself is misconfigured on the host; changing the arguments cannot fix it. Use another tool, or report that the tool is unavailable."
      );
    } else {
      lines.push(
        'Stop repeating the same invalid input. Fix the parameters against the tool schema (use_capability(action="inspect") shows it). If you cannot build a valid call, report that tool argument generation failed and what remains unfinished instead of retrying.'
      );
    }
  } else if (codes.has("RESULT_RANGE_INVALID") || codes.has("FILE_TOO_LARGE")) {
    lines.push(
      "Narrow the request, or page the stored result with session:tool_result using the offsets it returned."
    );
  } else {
    lines.push(
      "Read the error, change the approach (different arguments that address the cause, another tool, or a smaller step), or stop and report what is blocking you."
    );
  }
  return lines.join("\n");
}
function blockedGuidance(count, batch) {
  const first = batch[0];
  const last = batch.length === 1 ? `"${boundedText2(first.toolName)}"` : `this batch of ${batch.length} tool calls`;
  return [
    `[loop guard] The run policy has refused your tool calls ${count} turns in a row (most recently ${last}: ${boundedText2(`${first.error.code}: ${firstLine(first.error.message)}`, 512)}).`,
    "Trying other tools or wordings for the same action will not get past the policy. Choose an approach that the run allows, or stop and explain to the user what you need."
  ].join("\n");
}

// src/create-session.ts
var SANDBOX_RANK = {
  read_only: 0,
  workspace_write: 1,
  danger_full_access: 2
};
var APPROVAL_RANK = { strict: 0, on_request: 1, never: 2 };
var SURFACE_RANK = { lean: 0, full: 1 };
var STRAGGLER_WAIT_MS = 2e3;
var SNAPSHOT_DELAY_MS = 250;
function policyError(field, problem) {
  return new ToolhostError9({
    code: "CONFIG_INVALID",
    message: `options: ${field}: ${problem}`,
    details: { source: "options", field }
  });
}
function narrowPolicy(ceiling, options, readOnlyStrict = false) {
  const sandbox = options.sandbox ?? (readOnlyStrict ? "read_only" : ceiling.sandbox);
  const approval = options.approval ?? ceiling.approval;
  const surface = options.surface ?? ceiling.surface;
  if (!(sandbox in SANDBOX_RANK))
    throw policyError("sandbox", "expected read_only, workspace_write or danger_full_access");
  if (!(approval in APPROVAL_RANK)) throw policyError("approval", "expected strict, on_request or never");
  if (!(surface in SURFACE_RANK)) throw policyError("surface", "expected lean or full");
  if (SANDBOX_RANK[sandbox] > SANDBOX_RANK[ceiling.sandbox]) {
    throw policyError("sandbox", `a session may not widen the sandbox beyond ${ceiling.sandbox}`);
  }
  if (readOnlyStrict && sandbox !== "read_only")
    throw policyError("sandbox", "a strict read-only child runs in read_only");
  if (APPROVAL_RANK[approval] > APPROVAL_RANK[ceiling.approval]) {
    throw policyError("approval", `a session may not ask less than ${ceiling.approval}`);
  }
  if (SURFACE_RANK[surface] > SURFACE_RANK[ceiling.surface]) {
    throw policyError("surface", `a session may not widen the surface beyond ${ceiling.surface}`);
  }
  return { sandbox, approval, surface };
}
function createSession(host, start) {
  const { id, policy } = start;
  const dir = sessionDir(host.stateDir, id);
  const release = start.persist ? claimSessionDir(dir, id) : () => void 0;
  const disposers = [release];
  try {
    return build();
  } catch (error) {
    for (const dispose of disposers.reverse()) {
      try {
        dispose();
      } catch {
      }
    }
    throw error;
  }
  function build() {
    const conversation = host.conversationTools ? start.conversation : void 0;
    const planMode = start.restore?.plan !== void 0 ? true : start.plan;
    const surface = host.surfaceFor(policy.sandbox, policy.surface, conversation !== void 0, planMode);
    const audit = sessionAudit(host.audit, id);
    const observations = createObservationStore();
    let restoredJobsNote;
    let todos = [];
    let goal = null;
    let deliverables = [];
    if (start.restore) {
      observations.restore(start.restore.observations);
      restoredJobsNote = restoredJobs(start.restore.jobs);
      const restored = parseSessionStateSnapshot(start.restore);
      todos = restored.todos;
      goal = restored.goal ? restoredGoalState(restored.goal) : null;
      deliverables = restored.deliverables;
    }
    const state = {
      todos: () => todos,
      replaceTodos: (next) => {
        todos = Object.freeze(next.map((todo) => Object.freeze({ ...todo })));
      },
      goal: () => goal,
      replaceGoal: (next) => {
        goal = Object.freeze({ ...next });
      },
      deliverables: () => deliverables,
      replaceDeliverables: (next) => {
        deliverables = Object.freeze(next.map((entry) => Object.freeze({ ...entry })));
      },
      inPlanPhase: () => start.inPlanPhase?.() === true,
      conversation
    };
    const jobs = createJobManager({
      sandbox: { ...host.jobSandbox, mode: policy.sandbox },
      ...host.jobEnvironment ? { environment: host.jobEnvironment } : {},
      ...start.persist ? { stateDir: join2(dir, "jobs") } : {}
    });
    disposers.push(() => jobs.close());
    let planActive = planMode && (start.restore?.plan?.active ?? true);
    let planJobs;
    if (planActive && policy.sandbox !== "read_only") {
      const manager = createJobManager({
        sandbox: { ...host.jobSandbox, mode: "read_only" },
        ...start.persist ? { stateDir: join2(dir, "plan-jobs") } : {}
      });
      planJobs = manager;
      disposers.push(() => manager.close());
    }
    const currentJobs = () => planActive && planJobs ? planJobs : jobs;
    let planEndNote;
    const planPhase = planMode ? {
      get active() {
        return planActive;
      },
      sandbox: policy.sandbox,
      end() {
        if (!planActive) return void 0;
        planActive = false;
        audit.emit("plan-approved", { sandbox: policy.sandbox });
        const manager = planJobs;
        if (!manager) return void 0;
        const running = manager.list().filter((job) => job.state === "running");
        void manager.close();
        if (running.length === 0) return void 0;
        planEndNote = `Background jobs started during the plan phase were stopped when the plan was approved (they ran in the read-only sandbox): ${running.map((job) => `${job.id} (${String(job.label).slice(0, 80)})`).join("; ")}. Start them again if they are still needed.`;
        return planEndNote;
      }
    } : void 0;
    const approvals = createSessionApprovals();
    const resultStore = createResultStore(
      start.persist ? { dir: join2(dir, "results") } : {}
    );
    disposers.push(() => resultStore.close());
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    const onHostClose = () => controller.abort(host.hostSignal.reason);
    if (host.hostSignal.aborted) onHostClose();
    else host.hostSignal.addEventListener("abort", onHostClose, { once: true });
    disposers.push(() => host.hostSignal.removeEventListener("abort", onHostClose));
    let context;
    const proxy = host.proxy.clone({
      catalog: () => surface.catalog,
      authorize: (request) => authorizeCapability(context, request, {
        sandbox: policy.sandbox,
        untrustedServers: host.untrustedServers,
        readOnlyStrict: start.readOnlyStrict
      }),
      refusal: (target, call) => capabilityRefusal(
        context,
        target,
        {
          sandbox: policy.sandbox,
          untrustedServers: host.untrustedServers,
          readOnlyStrict: start.readOnlyStrict
        },
        call
      ),
      resultStore
    });
    disposers.push(() => proxy.close());
    context = {
      sessionId: id,
      registry: host.registry,
      validator: host.validator,
      sandbox: policy.sandbox,
      approval: policy.approval,
      platform: host.platform,
      rules: host.rules,
      pathPolicy: host.pathPolicy,
      approve: start.approve,
      approvalTimeoutMs: host.approvalTimeoutMs,
      audit,
      resultStore,
      stormBreaker: createStormBreaker(),
      closeSignal: controller.signal,
      onStraggler: (settled) => {
        stragglers.add(settled);
        void settled.finally(() => stragglers.delete(settled));
        host.onStraggler(settled);
      },
      capabilityCallIsParallel: (args) => proxy.callAnnotations(args).readOnly === true,
      catalogTool: (name) => surface.catalogByName.get(name),
      shellName: host.shellName,
      clientInjectedKeys: host.clientInjectedKeys,
      counters: { call: 0, batch: 0 },
      root: host.root,
      hooks: host.hooks,
      extensions: host.extensions,
      approvals,
      plan: planPhase
    };
    const pipeline = context;
    host.register({
      id,
      observations,
      get jobs() {
        return currentJobs();
      },
      proxy,
      state,
      ...planPhase ? { plan: planPhase } : {}
    });
    disposers.push(() => host.unregister(id));
    const inflight = /* @__PURE__ */ new Set();
    const stragglers = /* @__PURE__ */ new Set();
    let snapshotTimer;
    let closing;
    let closed = false;
    const snapshot = () => ({
      format: "toolhost-session-v1",
      id,
      parentId: start.parentId,
      root: host.root,
      takenAt: (/* @__PURE__ */ new Date()).toISOString(),
      policy,
      surfaceFingerprint: surface.fingerprint,
      observations: observations.toJSON(),
      results: resultStore.entries().map(({ resultRef, callId, toolName, totalBytes, sha256 }) => ({
        resultRef,
        callId,
        toolName,
        totalBytes,
        sha256
      })),
      ...planPhase ? { plan: { active: planPhase.active } } : {},
      jobs: currentJobs().list().map(
        ({
          id: jobId,
          shell,
          label,
          background,
          state: state2,
          exitCode,
          startedAt,
          endedAt
        }) => ({
          id: jobId,
          shell,
          label,
          background,
          state: state2,
          ...exitCode === void 0 ? {} : { exitCode },
          startedAt,
          ...endedAt === void 0 ? {} : { endedAt }
        })
      ),
      todos,
      goal: goal?.goal ?? null,
      deliverables
    });
    let persisted;
    const persistNow = (onlyIfChanged = false) => {
      if (!start.persist) return;
      try {
        const taken = snapshot();
        const state2 = JSON.stringify({ ...taken, takenAt: void 0 });
        if (onlyIfChanged && state2 === persisted) return;
        writeSessionSnapshot(dir, taken);
        persisted = state2;
      } catch (error) {
        audit.emit("session-persist-failed", {
          reason: error.code ?? String(error)
        });
      }
    };
    const schedulePersist = () => {
      if (!start.persist || closed || snapshotTimer) return;
      snapshotTimer = setTimeout(() => {
        snapshotTimer = void 0;
        persistNow(true);
      }, SNAPSHOT_DELAY_MS);
      snapshotTimer.unref();
    };
    const track = (work) => {
      inflight.add(work);
      void work.finally(() => {
        inflight.delete(work);
        schedulePersist();
      }).catch(() => void 0);
      return work;
    };
    audit.emit(start.restore ? "session-resumed" : "session-opened", {
      parentId: start.parentId ?? void 0,
      sandbox: policy.sandbox,
      approval: policy.approval,
      surface: policy.surface,
      surfaceFingerprint: surface.fingerprint,
      persistent: start.persist,
      ...start.restore ? { observations: start.restore.observations.entries.length } : {}
    });
    persistNow();
    const startNotes = [];
    const sessionHooks = host.hooks;
    const hookBase = (event) => ({
      session_id: id,
      cwd: host.root,
      hook_event_name: event,
      permission_mode: planActive ? "plan" : "default"
    });
    const source = start.restore ? "resume" : "startup";
    const started = sessionHooks?.matches("SessionStart", source) === true ? sessionHooks.run(
      "SessionStart",
      source,
      { ...hookBase("SessionStart"), source },
      { audit, signal: controller.signal }
    ).then((outcome) => {
      for (const text of outcome.additionalContext) startNotes.push(text);
    }).catch(() => void 0) : Promise.resolve();
    const afterStart = (work) => started.then(work);
    const session = {
      id,
      parentId: start.parentId,
      policy,
      persistent: start.persist,
      dir,
      surfaceNames: () => surface.names,
      modelTools: () => surface.modelTools,
      surfaceFingerprint: () => surface.fingerprint,
      providerTools: (dialect, compileOptions) => surface.providerTools(dialect, compileOptions),
      effectiveAnnotations: (toolName) => effectiveAnnotations(host, surface, policy, toolName, proxy),
      dispatch: (call, options) => track(afterStart(() => dispatchCall(pipeline, call, options))),
      dispatchBatch: (calls, options) => track(afterStart(() => dispatchBatch(pipeline, calls, options))),
      get planning() {
        return planActive;
      },
      drainNotes() {
        const notes = [];
        if (startNotes.length > 0) {
          notes.push(`SessionStart hook context:
${startNotes.splice(0).join("\n")}`);
        }
        if (restoredJobsNote) {
          notes.push(restoredJobsNote);
          restoredJobsNote = void 0;
        }
        const completed = currentJobs().drainCompletionNotes();
        if (completed) notes.push(completed);
        if (notes.length === 0) return void 0;
        audit.emit("notes-drained", { notes: notes.length });
        return notes.join("\n\n");
      },
      todos: () => todos,
      goal: () => goal,
      deliverables: () => deliverables,
      startGoalRound() {
        const next = beginGoalRound(goal);
        goal = next.state;
        if (next.round)
          audit.emit("goal-round-started", { goalId: next.round.goalId, round: next.round.round });
        schedulePersist();
        return next.round;
      },
      snapshot,
      openChild: (options = {}) => start.openChild(session, options),
      close() {
        closing ??= (async () => {
          closed = true;
          clearTimeout(snapshotTimer);
          snapshotTimer = void 0;
          controller.abort(new ToolhostError9({ code: "ABORTED", message: "the session is closing" }));
          await Promise.allSettled([...inflight]);
          await settleWithin([...stragglers], STRAGGLER_WAIT_MS);
          await started;
          if (sessionHooks?.matches("SessionEnd", "other")) {
            await sessionHooks.run(
              "SessionEnd",
              "other",
              { ...hookBase("SessionEnd"), reason: "other" },
              { audit }
            );
          }
          const failures = [];
          persistNow();
          for (const dispose of disposers.reverse()) {
            try {
              await dispose();
            } catch (error) {
              failures.push(String(error));
            }
          }
          audit.emit("session-closed", failures.length > 0 ? { failures } : {});
        })();
        return closing;
      },
      get closed() {
        return closed;
      }
    };
    sessionStarts.set(session, started);
    return session;
  }
}
var sessionStarts = /* @__PURE__ */ new WeakMap();
function sessionStarted(session) {
  return sessionStarts.get(session) ?? Promise.resolve();
}
var READ_ONLY_HINTS = Object.freeze({
  readOnly: true,
  destructive: false,
  openWorld: false
});
function effectiveAnnotations(host, surface, policy, toolName, proxy) {
  const tool = host.registry.get(toolName);
  if (!tool) return void 0;
  const definition = tool.definition;
  if (definition.category === "shell" && (toolName === "bash" || toolName === "pwsh")) {
    if (policy.sandbox === "read_only") return READ_ONLY_HINTS;
    return {
      readOnly: false,
      destructive: true,
      openWorld: policy.sandbox === "danger_full_access" || host.jobSandbox.network === true
    };
  }
  if (toolName !== "use_capability") return definition.annotations;
  let readOnly = true;
  let destructive = false;
  let openWorld = false;
  for (const target of surface.catalog) {
    const facts = target.definition.annotations;
    if (sandboxDenial(toolFacts(target), policy.sandbox)) continue;
    if (toolFacts(target).sessionScoped === true) continue;
    const hints = target.definition.category === "shell" && (target.name === "bash" || target.name === "pwsh") ? effectiveAnnotations(host, surface, policy, target.name, proxy) ?? facts : facts;
    readOnly &&= hints.readOnly === true;
    destructive ||= hints.destructive === true || hints.destructive === void 0 && hints.readOnly !== true;
    openWorld ||= hints.openWorld !== false;
  }
  if (proxy.inventory().servers.some((server) => server.status !== "disabled")) {
    readOnly = false;
    destructive = true;
    openWorld = true;
  }
  return { readOnly, destructive, openWorld };
}
function sessionAudit(audit, sessionId) {
  return {
    enabled: audit.enabled,
    emit: (type, fields = {}) => audit.emit(type, { sessionId, ...fields }),
    close: async () => void 0
  };
}
function restoredJobs(jobs) {
  const previous = (jobs ?? []).filter((job) => typeof job?.id === "string");
  if (previous.length === 0) return void 0;
  return `Background jobs of the session before the restart are gone (their processes ended with the old host and their output is no longer readable): ${previous.map(
    (job) => `${job.id} (${String(job.label).slice(0, 80)}) \u2014 ${job.state === "running" ? "interrupted" : job.state}`
  ).join("; ")}. Start a command again if its result is still needed.`;
}
async function settleWithin(promises, ms) {
  if (promises.length === 0) return;
  let timer;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise((resolve5) => {
      timer = setTimeout(resolve5, ms);
    })
  ]);
  clearTimeout(timer);
}
async function authorizeCapability(context, request, session) {
  const connect = request.kind === "mcp-connect";
  const fromProject = session.untrustedServers.has(request.server);
  const trustedHints = request.annotationsTrusted && !fromProject;
  const annotations = connect ? {} : believedMcpHints(request.annotations, trustedHints);
  if (!connect && session.readOnlyStrict && !(annotations.readOnly === true && annotations.destructive !== true)) {
    return { allowed: false, error: strictReadOnlyRefusal(request.toolName) };
  }
  const decided = await authorizeTarget(
    context,
    {
      name: request.toolName,
      source: "mcp",
      group: "utility_builtins",
      category: annotations.readOnly === true ? "read" : "utility",
      annotations,
      trusted: !fromProject && (connect || request.annotationsTrusted && session.sandbox !== "read_only"),
      ...fromProject && connect ? {
        approvalRequired: "the server is defined by the project configuration, which you have not approved; run `toolhost trust` in the project to approve it"
      } : {},
      callId: request.callId,
      invocation: { kind: "capability", capabilityId: request.capabilityId },
      preview: request.preview,
      signal: request.signal
    },
    connect ? { toolInput: { server: request.server, transport: request.transport } } : {
      toolInput: request.arguments,
      // The same use_capability call, with the hook's arguments for the MCP tool.
      rewrite: (updatedInput, envelope) => ({ ...envelope, arguments: updatedInput })
    }
  );
  if (decided.allowed && request.kind === "mcp-tool") {
    const scope = executionScope.getStore();
    if (scope?.callId === request.callId)
      scope.mcpTargets.push({ name: request.toolName, input: request.arguments });
  }
  return decided;
}

// src/host-surface.ts
import {
  deepFreeze as deepFreeze2,
  sha256Hex,
  toModelTools
} from "@toolhost/contracts";
import {
  compileTools,
  fingerprintValue
} from "@toolhost/provider-dialects";
function createHostSurfaces(options) {
  const { registry } = options;
  const cache = /* @__PURE__ */ new Map();
  const hostedTools = registry.list().filter((tool) => tool.definition.source === "hosted" && tool.definition.hosted).map((tool) => ({ name: tool.name, declarations: tool.definition.hosted?.declarations ?? {} }));
  return (sandbox, profile, conversation = false, plan = false) => {
    const key = `${sandbox}\0${profile}\0${conversation}\0${plan}`;
    const cached = cache.get(key);
    if (cached) return cached;
    const selected = selectSurface({
      profile,
      sandbox,
      platform: options.platform,
      // Only the composed built-ins and the proxy: extra `tools` never reach the provider surface.
      tools: registry.list({ visibility: "all" }).filter((tool) => options.candidates.has(tool.name)),
      conversation
    });
    const planTool = plan ? registry.get(EXIT_PLAN_MODE) : void 0;
    const tools = Object.freeze(
      planTool ? [...selected, planTool].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : selected
    );
    const names = Object.freeze(tools.map((tool) => tool.name));
    const modelTools = deepFreeze2(toModelTools(tools));
    const fingerprint = sha256Hex(JSON.stringify(modelTools)).slice(0, 16);
    const onSurface = new Set(names);
    const catalog = Object.freeze(
      registry.list().filter(
        (tool) => !onSurface.has(tool.name) && tool.name !== USE_CAPABILITY && tool.definition.source !== "hosted" && !(tool.definition.source === "builtin" && CONVERSATION_TOOLS.includes(tool.name))
      )
    );
    const compiled = /* @__PURE__ */ new Map();
    const surface = {
      tools,
      names,
      modelTools,
      fingerprint,
      catalog,
      catalogByName: new Map(catalog.map((tool) => [tool.name, tool])),
      providerTools(dialect, compileOptions = {}) {
        const compileKey = JSON.stringify([dialect, compileOptions]);
        let result = compiled.get(compileKey);
        if (!result) {
          const tools2 = compileTools(modelTools, {
            ...compileOptions,
            dialect,
            ...hostedTools.length > 0 ? { hosted: hostedTools } : {}
          });
          result = deepFreeze2({ ...tools2, fingerprint: fingerprintValue(tools2.tools) });
          compiled.set(compileKey, result);
        }
        return result;
      }
    };
    cache.set(key, surface);
    return surface;
  };
}

// src/host-settings.ts
import { realpathSync as realpathSync2, statSync as statSync3 } from "fs";
import { isAbsolute as isAbsolute3, relative as relative2, resolve as resolve3 } from "path";
import { errorMessage as errorMessage4, ToolhostError as ToolhostError13 } from "@toolhost/contracts";
import {
  createPathPolicy,
  DEFAULT_PROTECTED_PATHS,
  DEFAULT_SECRET_PATHS
} from "@toolhost/path-policy";

// src/parse-host-config.ts
import { readFileSync as readFileSync2 } from "fs";
import { parseMcpServers } from "@toolhost/capability-proxy";
import { err as err4, errorMessage as errorMessage3, isJsonObject as isJsonObject4, ok as ok4, ToolhostError as ToolhostError11 } from "@toolhost/contracts";

// src/hook-config.ts
import {
  compileLinearRegExp,
  err as err2,
  isJsonObject as isJsonObject2,
  ok as ok2
} from "@toolhost/contracts";
var HOOK_EVENTS = ["PreToolUse", "PostToolUse", "SessionStart", "SessionEnd"];
var DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
var MAX_HOOK_TIMEOUT_SECONDS = 3600;
var SIMPLE_MATCHER = /^[A-Za-z0-9_|-]+$/;
function compileHookMatcher(text) {
  const source = (text ?? "").trim();
  if (source === "" || source === "*") return ok2({ text: "", matches: () => true });
  if (SIMPLE_MATCHER.test(source)) {
    const names = new Set(source.split("|").filter((name) => name !== ""));
    return ok2({ text: source, matches: (name) => names.has(name) });
  }
  const compiled = compileLinearRegExp(source);
  if (!compiled.ok) return err2(`not a usable regular expression (${compiled.error.problem})`);
  const pattern = compiled.value;
  return ok2({ text: source, matches: (name) => pattern.test(name) });
}
function parseHooksConfig(value, source) {
  if (value === void 0) return ok2({ config: {}, hooks: [] });
  const fail = (field, problem) => err2({ field, problem });
  if (!isJsonObject2(value))
    return fail("hooks", "expected an object of events (PreToolUse, PostToolUse, ...)");
  const config = {};
  const hooks = [];
  for (const [event, groups] of Object.entries(value)) {
    if (!HOOK_EVENTS.includes(event)) {
      return fail(`hooks.${event}`, `unknown hook event; expected one of ${HOOK_EVENTS.join(", ")}`);
    }
    if (!Array.isArray(groups)) return fail(`hooks.${event}`, "expected an array of matcher groups");
    const parsedGroups = [];
    for (const [groupIndex, group] of groups.entries()) {
      const groupField = `hooks.${event}[${groupIndex}]`;
      if (!isJsonObject2(group)) return fail(groupField, 'expected an object with "matcher" and "hooks"');
      for (const key of Object.keys(group)) {
        if (key !== "matcher" && key !== "hooks")
          return fail(`${groupField}.${key}`, "unknown field; expected matcher or hooks");
      }
      if (group.matcher !== void 0 && typeof group.matcher !== "string") {
        return fail(`${groupField}.matcher`, "expected a string (a tool name, a|b, or a regular expression)");
      }
      const matcher = compileHookMatcher(group.matcher);
      if (!matcher.ok) return fail(`${groupField}.matcher`, matcher.error);
      if (!Array.isArray(group.hooks) || group.hooks.length === 0) {
        return fail(`${groupField}.hooks`, "expected a non-empty array of hooks");
      }
      const commands = [];
      for (const [hookIndex, hook] of group.hooks.entries()) {
        const hookField = `${groupField}.hooks[${hookIndex}]`;
        if (!isJsonObject2(hook))
          return fail(hookField, 'expected an object { "type": "command", "command" }');
        for (const key of Object.keys(hook)) {
          if (key !== "type" && key !== "command" && key !== "timeout")
            return fail(`${hookField}.${key}`, "unknown field; expected type, command or timeout");
        }
        if (hook.type !== "command") {
          return fail(`${hookField}.type`, 'only "command" hooks are supported');
        }
        if (typeof hook.command !== "string" || hook.command.trim() === "" || hook.command.includes("\0")) {
          return fail(`${hookField}.command`, "expected a non-empty shell command");
        }
        let timeout;
        if (hook.timeout !== void 0) {
          if (typeof hook.timeout !== "number" || !Number.isFinite(hook.timeout) || hook.timeout <= 0 || hook.timeout > MAX_HOOK_TIMEOUT_SECONDS) {
            return fail(
              `${hookField}.timeout`,
              `expected a number of seconds from 0 to ${MAX_HOOK_TIMEOUT_SECONDS}`
            );
          }
          timeout = hook.timeout;
        }
        commands.push({
          type: "command",
          command: hook.command,
          ...timeout === void 0 ? {} : { timeout }
        });
        hooks.push({
          event,
          id: hookField,
          source,
          matcher: matcher.value,
          command: hook.command,
          timeoutMs: Math.round((timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS) * 1e3)
        });
      }
      parsedGroups.push({
        ...group.matcher === void 0 ? {} : { matcher: group.matcher },
        hooks: commands
      });
    }
    config[event] = parsedGroups;
  }
  return ok2({ config, hooks });
}

// src/sandbox-config.ts
import { realpathSync, statSync as statSync2 } from "fs";
import { homedir } from "os";
import { isAbsolute, join as join3, relative, resolve } from "path";
import { err as err3, isJsonObject as isJsonObject3, ok as ok3, ToolhostError as ToolhostError10 } from "@toolhost/contracts";
import {
  HOME_CREDENTIAL_PATHS,
  SYSTEM_SECRET_PATHS
} from "@toolhost/jobs";
var EMPTY_SANDBOX_CONFIG = Object.freeze({ writableRoots: [], readableRoots: [] });
var EMPTY_SHELL_ENVIRONMENT = Object.freeze({
  include: [],
  exclude: [],
  set: {}
});
var MAX_PLAN_ENTRIES_LIMIT = 1e7;
var DEFAULT_MAX_PLAN_ENTRIES = 2e5;
var INHERIT_ORDER = ["none", "core", "all"];
var NAME_OR_PREFIX = /^(?:[A-Za-z_][A-Za-z0-9_()]*\*?|\*)$/;
var VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
var MAX_SET_VALUE_BYTES = 32 * 1024;
var MAX_LIST_ENTRIES = 256;
var UNTRUSTED = "the project configuration is not trusted";
function invalid(source, field, problem) {
  return new ToolhostError10({
    code: "CONFIG_INVALID",
    message: `${source}: ${field}: ${problem}`,
    details: { source, field }
  });
}
function pathList(value, source, field) {
  if (!Array.isArray(value)) return err3(invalid(source, field, "expected an array of path strings"));
  if (value.length > MAX_LIST_ENTRIES)
    return err3(invalid(source, field, `at most ${MAX_LIST_ENTRIES} entries`));
  const list = [];
  for (const [index, item] of value.entries()) {
    if (typeof item !== "string" || item.trim() === "" || item.includes("\0")) {
      return err3(invalid(source, `${field}[${index}]`, "expected a non-empty path string"));
    }
    list.push(item);
  }
  return ok3(list);
}
function parseSandboxConfig(value, source) {
  if (value === void 0) return ok3(EMPTY_SANDBOX_CONFIG);
  if (!isJsonObject3(value)) return err3(invalid(source, "sandbox", "expected an object"));
  let network;
  let maxPlanEntries;
  const lists = { writableRoots: [], readableRoots: [] };
  for (const [key, item] of Object.entries(value)) {
    if (key === "network") {
      if (typeof item !== "boolean") return err3(invalid(source, "sandbox.network", "expected true or false"));
      network = item;
    } else if (key === "writableRoots" || key === "readableRoots") {
      const list = pathList(item, source, `sandbox.${key}`);
      if (!list.ok) return list;
      lists[key] = list.value;
    } else if (key === "maxPlanEntries") {
      if (typeof item !== "number" || !Number.isInteger(item) || item < 1 || item > MAX_PLAN_ENTRIES_LIMIT) {
        return err3(
          invalid(
            source,
            "sandbox.maxPlanEntries",
            `expected an integer from 1 to ${MAX_PLAN_ENTRIES_LIMIT}`
          )
        );
      }
      maxPlanEntries = item;
    } else {
      return err3(
        invalid(
          source,
          `sandbox.${key}`,
          "unknown field; expected network, writableRoots, readableRoots or maxPlanEntries"
        )
      );
    }
  }
  return ok3({
    ...network === void 0 ? {} : { network },
    ...lists,
    ...maxPlanEntries === void 0 ? {} : { maxPlanEntries }
  });
}
function parseShellEnvironment(value, source) {
  if (value === void 0) return ok3(EMPTY_SHELL_ENVIRONMENT);
  if (!isJsonObject3(value)) return err3(invalid(source, "shellEnvironment", "expected an object"));
  let inherit;
  const names = { include: [], exclude: [] };
  const set = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === "inherit") {
      if (!INHERIT_ORDER.includes(item)) {
        return err3(invalid(source, "shellEnvironment.inherit", "expected core, all or none"));
      }
      inherit = item;
    } else if (key === "include" || key === "exclude") {
      const field = `shellEnvironment.${key}`;
      if (!Array.isArray(item)) return err3(invalid(source, field, "expected an array of variable names"));
      if (item.length > MAX_LIST_ENTRIES)
        return err3(invalid(source, field, `at most ${MAX_LIST_ENTRIES} entries`));
      for (const [index, name] of item.entries()) {
        if (typeof name !== "string" || !NAME_OR_PREFIX.test(name)) {
          return err3(
            invalid(
              source,
              `${field}[${index}]`,
              "expected a variable name (letters, digits, _), or a prefix ending in *"
            )
          );
        }
        names[key].push(name);
      }
    } else if (key === "set") {
      if (!isJsonObject3(item))
        return err3(invalid(source, "shellEnvironment.set", "expected an object of names to strings"));
      const entries = Object.entries(item);
      if (entries.length > MAX_LIST_ENTRIES) {
        return err3(invalid(source, "shellEnvironment.set", `at most ${MAX_LIST_ENTRIES} variables`));
      }
      for (const [name, setting] of entries) {
        if (!VARIABLE_NAME.test(name)) {
          return err3(
            invalid(
              source,
              "shellEnvironment.set",
              "every name must be a variable name (letters, digits, _)"
            )
          );
        }
        if (typeof setting !== "string" || setting.includes("\0") || Buffer.byteLength(setting) > MAX_SET_VALUE_BYTES) {
          return err3(
            invalid(
              source,
              `shellEnvironment.set.${name}`,
              `expected a string of at most ${MAX_SET_VALUE_BYTES} bytes without NUL`
            )
          );
        }
        set[name] = setting;
      }
    } else {
      return err3(
        invalid(
          source,
          `shellEnvironment.${key}`,
          "unknown field; expected inherit, include, exclude or set"
        )
      );
    }
  }
  return ok3({ ...inherit === void 0 ? {} : { inherit }, ...names, set });
}
function anchored(entry, root) {
  if (entry === "~" || entry.startsWith("~/") || isAbsolute(entry)) return entry;
  return resolve(root, entry);
}
function mergeShellSettingsTrusted(base, next, root) {
  const network = next.sandbox.network ?? base.sandbox.network;
  const maxPlanEntries = next.sandbox.maxPlanEntries ?? base.sandbox.maxPlanEntries;
  const inherit = next.shellEnvironment.inherit ?? base.shellEnvironment.inherit;
  return {
    sandbox: {
      ...network === void 0 ? {} : { network },
      writableRoots: [
        ...base.sandbox.writableRoots,
        ...next.sandbox.writableRoots.map((entry) => anchored(entry, root))
      ],
      readableRoots: [
        ...base.sandbox.readableRoots,
        ...next.sandbox.readableRoots.map((entry) => anchored(entry, root))
      ],
      ...maxPlanEntries === void 0 ? {} : { maxPlanEntries }
    },
    shellEnvironment: {
      ...inherit === void 0 ? {} : { inherit },
      include: [...base.shellEnvironment.include, ...next.shellEnvironment.include],
      exclude: [...base.shellEnvironment.exclude, ...next.shellEnvironment.exclude],
      set: { ...base.shellEnvironment.set, ...next.shellEnvironment.set }
    }
  };
}
function mergeShellSettingsUntrusted(base, next, ignored) {
  let network = base.sandbox.network;
  if (next.sandbox.network === true && base.sandbox.network !== true) {
    ignored.push({ field: "sandbox.network", reason: `${UNTRUSTED}: it may not give commands the network` });
  } else if (next.sandbox.network === false) network = false;
  for (const key of ["writableRoots", "readableRoots"]) {
    for (const index of next.sandbox[key].keys()) {
      ignored.push({
        field: `sandbox.${key}[${index}]`,
        reason: `${UNTRUSTED}: it may not show commands more of the host or let them write more`
      });
    }
  }
  let maxPlanEntries = base.sandbox.maxPlanEntries;
  const planCeiling = base.sandbox.maxPlanEntries ?? DEFAULT_MAX_PLAN_ENTRIES;
  if (next.sandbox.maxPlanEntries !== void 0) {
    if (next.sandbox.maxPlanEntries > planCeiling) {
      ignored.push({
        field: "sandbox.maxPlanEntries",
        reason: `${UNTRUSTED}: it may not raise the limit beyond ${planCeiling}`
      });
    } else maxPlanEntries = next.sandbox.maxPlanEntries;
  }
  let inherit = base.shellEnvironment.inherit;
  const inheritCeiling = base.shellEnvironment.inherit ?? "core";
  const asked = next.shellEnvironment.inherit;
  if (asked !== void 0) {
    if (INHERIT_ORDER.indexOf(asked) > INHERIT_ORDER.indexOf(inheritCeiling)) {
      ignored.push({
        field: "shellEnvironment.inherit",
        reason: `${UNTRUSTED}: it may not pass commands more of your environment than ${inheritCeiling}`
      });
    } else inherit = asked;
  }
  for (const index of next.shellEnvironment.include.keys()) {
    ignored.push({
      field: `shellEnvironment.include[${index}]`,
      reason: `${UNTRUSTED}: it may not pass commands more of your environment`
    });
  }
  for (const name of Object.keys(next.shellEnvironment.set)) {
    ignored.push({
      field: `shellEnvironment.set.${name}`,
      reason: `${UNTRUSTED}: it may not set variables for commands`
    });
  }
  return {
    sandbox: {
      ...network === void 0 ? {} : { network },
      writableRoots: [...base.sandbox.writableRoots],
      readableRoots: [...base.sandbox.readableRoots],
      ...maxPlanEntries === void 0 ? {} : { maxPlanEntries }
    },
    shellEnvironment: {
      ...inherit === void 0 ? {} : { inherit },
      include: [...base.shellEnvironment.include],
      exclude: [...base.shellEnvironment.exclude, ...next.shellEnvironment.exclude],
      set: { ...base.shellEnvironment.set }
    }
  };
}
function inside(parent, target) {
  const rel = relative(parent, target);
  return rel === "" || !rel.startsWith("..") && !isAbsolute(rel);
}
function realOrSelf(target) {
  try {
    return realpathSync.native(target);
  } catch {
    return resolve(target);
  }
}
function shellConfigError(field, problem) {
  return new ToolhostError10({
    code: "CONFIG_INVALID",
    message: `configuration: ${field}: ${problem}`,
    recovery: "name a directory that holds nothing the host or your login depends on, or remove the entry",
    details: { source: "configuration", field }
  });
}
function resolveShellSandbox(options) {
  const home = realOrSelf(options.home ?? homedir());
  const expand = (entry) => entry === "~" ? home : entry.startsWith("~/") ? join3(home, entry.slice(2)) : resolve(entry);
  const roots = options.pathPolicy.roots;
  const hostDirs = [realOrSelf(options.stateDir), realOrSelf(options.userConfigDir)];
  const credentialStores = [...HOME_CREDENTIAL_PATHS.map((name) => join3(home, name)), ...SYSTEM_SECRET_PATHS];
  const existing = (lexical) => {
    try {
      const real = realpathSync.native(lexical);
      statSync2(real);
      return real;
    } catch {
      return void 0;
    }
  };
  const writableRoots = [];
  for (const [index, entry] of options.sandbox.writableRoots.entries()) {
    const field = `sandbox.writableRoots[${index}]`;
    const lexical = expand(entry);
    const real = existing(lexical);
    if (real === void 0) continue;
    if (real === "/") throw shellConfigError(field, "is the file system root, which is never writable");
    if (options.pathPolicy.isProtected(real, "write") || options.pathPolicy.isProtected(lexical, "write")) {
      throw shellConfigError(
        field,
        "is a protected or secret path (or lies inside one), which commands may not write"
      );
    }
    if (roots.some((root) => inside(real, root))) {
      throw shellConfigError(
        field,
        "contains a root, whose protected paths (.git, .toolhost, configured ones) it would make writable"
      );
    }
    if (inside(real, home)) {
      throw shellConfigError(
        field,
        "is the home directory or contains it; its startup files and credential stores stay read-only (name a cache inside it instead)"
      );
    }
    if (credentialStores.some((store) => inside(store, real))) {
      throw shellConfigError(field, "lies inside a credential store or a system secret");
    }
    if (hostDirs.some((dir) => inside(dir, real) || inside(real, dir))) {
      throw shellConfigError(
        field,
        "overlaps toolhost's state directory or your toolhost configuration directory, which commands may never write"
      );
    }
    if (!writableRoots.includes(real)) writableRoots.push(real);
  }
  const readableRoots = [];
  for (const [index, entry] of options.sandbox.readableRoots.entries()) {
    const field = `sandbox.readableRoots[${index}]`;
    const real = existing(expand(entry));
    if (real === void 0) continue;
    if (real === "/") throw shellConfigError(field, "is the file system root; name the directories to show");
    const exposesHostDir = hostDirs.some(
      (dir) => inside(dir, real) || inside(real, dir) && !roots.some((root) => inside(root, dir))
    );
    if (exposesHostDir) {
      throw shellConfigError(
        field,
        "overlaps toolhost's state directory or your toolhost configuration directory, which hold other sessions' results and your sign-ins"
      );
    }
    if (!readableRoots.includes(real)) readableRoots.push(real);
  }
  const environment = options.shellEnvironment;
  return {
    network: options.network ?? options.sandbox.network ?? false,
    writableRoots,
    readableRoots,
    maxPlanEntries: options.sandbox.maxPlanEntries ?? DEFAULT_MAX_PLAN_ENTRIES,
    environment: {
      ...environment.inherit === void 0 ? {} : { inherit: environment.inherit },
      pass: environment.include,
      exclude: environment.exclude,
      set: environment.set
    }
  };
}

// src/parse-host-config.ts
var CONFIG_FILE_NAME = "toolhost.config.json";
var EMPTY_HOST_CONFIG = Object.freeze({
  mcpServers: {},
  permissions: { allow: [], ask: [], deny: [] },
  protectedPaths: [],
  secretPaths: [],
  allowedRoots: [],
  defaults: {},
  webFetch: { allowHosts: [], allowPrivateNetwork: false },
  sandbox: EMPTY_SANDBOX_CONFIG,
  shellEnvironment: EMPTY_SHELL_ENVIRONMENT,
  hooks: []
});
var TOP_LEVEL = /* @__PURE__ */ new Set([
  "$schema",
  "mcpServers",
  "permissions",
  "protectedPaths",
  "secretPaths",
  "allowedRoots",
  "defaults",
  "audit",
  "clientInjectedKeys",
  "webFetch",
  "sandbox",
  "shellEnvironment",
  "hooks"
]);
var SANDBOXES = ["read_only", "workspace_write", "danger_full_access"];
var APPROVALS = ["strict", "on_request", "never"];
var SURFACES = ["lean", "full"];
function invalid2(source, field, problem) {
  return new ToolhostError11({
    code: "CONFIG_INVALID",
    message: `${source}: ${field}: ${problem}`,
    details: { source, field }
  });
}
function parseHostConfig(value, source = CONFIG_FILE_NAME) {
  if (!isJsonObject4(value)) return err4(invalid2(source, "(root)", "expected a JSON object"));
  for (const key of Object.keys(value)) {
    if (!TOP_LEVEL.has(key)) {
      return err4(
        invalid2(
          source,
          key,
          `unknown field; expected one of ${[...TOP_LEVEL].filter((k) => k !== "$schema").join(", ")}`
        )
      );
    }
  }
  const servers = {};
  if (value.mcpServers !== void 0) {
    const checked = parseMcpServers(value.mcpServers);
    if (!checked.ok) {
      const field = typeof checked.error.details.field === "string" ? checked.error.details.field : "mcpServers";
      return err4(
        new ToolhostError11({
          code: "CONFIG_INVALID",
          message: `${source}: ${checked.error.message}`,
          details: { source, field },
          cause: checked.error
        })
      );
    }
    for (const [name, server] of Object.entries(value.mcpServers)) {
      servers[name] = server;
    }
  }
  const permissions = { allow: [], ask: [], deny: [] };
  if (value.permissions !== void 0) {
    if (!isJsonObject4(value.permissions)) {
      return err4(invalid2(source, "permissions", "expected an object with allow, ask and deny lists"));
    }
    for (const key of Object.keys(value.permissions)) {
      if (key !== "allow" && key !== "ask" && key !== "deny") {
        return err4(invalid2(source, `permissions.${key}`, "unknown field; expected allow, ask or deny"));
      }
      const list = value.permissions[key];
      if (!Array.isArray(list))
        return err4(invalid2(source, `permissions.${key}`, "expected an array of rules"));
      for (const [index, rule] of list.entries()) {
        const parsed = parsePermissionRule(rule);
        if (!parsed.ok) return err4(invalid2(source, `permissions.${key}[${index}]`, parsed.error));
        permissions[key].push(parsed.value.text);
      }
    }
  }
  const lists = {
    protectedPaths: [],
    secretPaths: [],
    allowedRoots: []
  };
  for (const key of ["protectedPaths", "secretPaths", "allowedRoots"]) {
    const list = value[key];
    if (list === void 0) continue;
    if (!Array.isArray(list)) return err4(invalid2(source, key, "expected an array of path strings"));
    for (const [index, item] of list.entries()) {
      if (typeof item !== "string" || item.trim() === "" || item.includes("\0")) {
        return err4(invalid2(source, `${key}[${index}]`, "expected a non-empty path string"));
      }
      lists[key].push(item);
    }
  }
  const defaults = {};
  if (value.defaults !== void 0) {
    if (!isJsonObject4(value.defaults)) return err4(invalid2(source, "defaults", "expected an object"));
    for (const [key, item] of Object.entries(value.defaults)) {
      if (key === "sandbox") {
        if (!SANDBOXES.includes(item)) {
          return err4(invalid2(source, "defaults.sandbox", `expected one of ${SANDBOXES.join(", ")}`));
        }
        defaults.sandbox = item;
      } else if (key === "approval") {
        if (!APPROVALS.includes(item)) {
          return err4(invalid2(source, "defaults.approval", `expected one of ${APPROVALS.join(", ")}`));
        }
        defaults.approval = item;
      } else if (key === "surface") {
        if (!SURFACES.includes(item)) {
          return err4(invalid2(source, "defaults.surface", `expected one of ${SURFACES.join(", ")}`));
        }
        defaults.surface = item;
      } else if (key === "approvalTimeoutMs") {
        if (typeof item !== "number" || !Number.isInteger(item) || item < 1 || item > 864e5) {
          return err4(invalid2(source, "defaults.approvalTimeoutMs", "expected an integer from 1 to 86400000"));
        }
        defaults.approvalTimeoutMs = item;
      } else {
        return err4(
          invalid2(
            source,
            `defaults.${key}`,
            "unknown field; expected sandbox, approval, surface or approvalTimeoutMs"
          )
        );
      }
    }
  }
  let audit;
  if (value.audit !== void 0) {
    if (typeof value.audit !== "boolean" && (typeof value.audit !== "string" || value.audit.trim() === "")) {
      return err4(invalid2(source, "audit", "expected true, false or a file path"));
    }
    audit = value.audit;
  }
  let clientInjectedKeys;
  if (value.clientInjectedKeys !== void 0) {
    const keys = value.clientInjectedKeys;
    if (!Array.isArray(keys))
      return err4(invalid2(source, "clientInjectedKeys", "expected an array of key names"));
    clientInjectedKeys = [];
    for (const [index, key] of keys.entries()) {
      if (typeof key !== "string" || !/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/.test(key)) {
        return err4(
          invalid2(source, `clientInjectedKeys[${index}]`, "expected a key name (letters, digits, _ . -)")
        );
      }
      clientInjectedKeys.push(key);
    }
  }
  const webFetch = parseWebFetch(value.webFetch, source);
  if (!webFetch.ok) return webFetch;
  const sandbox = parseSandboxConfig(value.sandbox, source);
  if (!sandbox.ok) return sandbox;
  const shellEnvironment = parseShellEnvironment(value.shellEnvironment, source);
  if (!shellEnvironment.ok) return shellEnvironment;
  const hooks = parseHooksConfig(value.hooks, source);
  if (!hooks.ok) return err4(invalid2(source, hooks.error.field, hooks.error.problem));
  return ok4({
    mcpServers: servers,
    permissions,
    ...lists,
    defaults,
    ...audit === void 0 ? {} : { audit },
    ...clientInjectedKeys === void 0 ? {} : { clientInjectedKeys },
    webFetch: webFetch.value,
    sandbox: sandbox.value,
    shellEnvironment: shellEnvironment.value,
    hooks: hooks.value.hooks
  });
}
function parseWebFetch(value, source) {
  if (value === void 0) return ok4({ allowHosts: [], allowPrivateNetwork: false });
  if (!isJsonObject4(value)) return err4(invalid2(source, "webFetch", "expected an object"));
  const allowHosts = [];
  let allowPrivateNetwork = false;
  for (const [key, item] of Object.entries(value)) {
    if (key === "allowPrivateNetwork") {
      if (typeof item !== "boolean")
        return err4(invalid2(source, "webFetch.allowPrivateNetwork", "expected true or false"));
      allowPrivateNetwork = item;
    } else if (key === "allowHosts") {
      if (!Array.isArray(item))
        return err4(invalid2(source, "webFetch.allowHosts", "expected an array of host names"));
      for (const [index, host] of item.entries()) {
        if (typeof host !== "string" || !/^(?:\[[0-9A-Fa-f:.]+\]|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*|[A-Za-z0-9_.-]{1,253})$/.test(host.trim()))
          return err4(
            invalid2(
              source,
              `webFetch.allowHosts[${index}]`,
              "expected a host name or IP address (no scheme, port or path)"
            )
          );
        allowHosts.push(host.trim());
      }
    } else {
      return err4(
        invalid2(source, `webFetch.${key}`, "unknown field; expected allowHosts or allowPrivateNetwork")
      );
    }
  }
  return ok4({ allowHosts, allowPrivateNetwork });
}
function parseConfigText(text, source) {
  let parsed;
  try {
    parsed = JSON.parse(text.charCodeAt(0) === 65279 ? text.slice(1) : text);
  } catch (error) {
    return err4(
      new ToolhostError11({
        code: "CONFIG_INVALID",
        message: `${source}: (file): not valid JSON (${errorMessage3(error)})`,
        details: { source, field: "(file)" },
        cause: error
      })
    );
  }
  return parseHostConfig(parsed, source);
}
function loadHostConfig(file, options = {}) {
  let text;
  try {
    text = readFileSync2(file, "utf8");
  } catch (error) {
    const code = error.code;
    if (code === "ENOENT" && options.optional) return ok4(EMPTY_HOST_CONFIG);
    return err4(
      new ToolhostError11({
        code: "CONFIG_INVALID",
        message: `${file}: (file): cannot read the configuration (${code ?? "unknown error"})`,
        details: { source: file, field: "(file)" },
        cause: error
      })
    );
  }
  return parseConfigText(text, file);
}

// src/resolve-host-config.ts
import { closeSync as closeSync4, constants, fstatSync, openSync as openSync4, readSync } from "fs";
import { isAbsolute as isAbsolute2, join as join5, resolve as resolve2 } from "path";
import { err as err5, ok as ok5, ToolhostError as ToolhostError12 } from "@toolhost/contracts";

// src/user-config.ts
import { createHash, randomBytes as randomBytes2 } from "crypto";
import {
  closeSync as closeSync3,
  fsyncSync as fsyncSync2,
  mkdirSync as mkdirSync3,
  openSync as openSync3,
  readFileSync as readFileSync3,
  renameSync as renameSync2,
  rmSync as rmSync2,
  writeSync as writeSync2
} from "fs";
import { homedir as homedir2 } from "os";
import { join as join4 } from "path";
var USER_CONFIG_FILE_NAME = "config.json";
var TRUST_STORE_FILE_NAME = "trusted-projects.json";
function resolveUserConfigDir(options = {}) {
  const env = options.env ?? process.env;
  const explicit = env.TOOLHOST_CONFIG_DIR;
  if (explicit && explicit.trim() !== "") return explicit;
  const platform = options.platform ?? process.platform;
  if (platform === "win32" && env.APPDATA) return join4(env.APPDATA, "toolhost");
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg?.startsWith("/")) return join4(xdg, "toolhost");
  return join4(options.home ?? homedir2(), ".config", "toolhost");
}
function configDigest(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}
function readTrustStore(dir) {
  let text;
  try {
    text = readFileSync3(join4(dir, TRUST_STORE_FILE_NAME), "utf8");
  } catch {
    return { format: "toolhost-trust-v1", projects: {} };
  }
  try {
    const parsed = JSON.parse(text);
    if (parsed.format !== "toolhost-trust-v1" || typeof parsed.projects !== "object" || !parsed.projects) {
      return { format: "toolhost-trust-v1", projects: {} };
    }
    const projects = {};
    for (const [file, entry] of Object.entries(parsed.projects)) {
      if (entry && typeof entry.sha256 === "string" && /^[0-9a-f]{64}$/.test(entry.sha256)) {
        projects[file] = { sha256: entry.sha256, trustedAt: String(entry.trustedAt ?? "") };
      }
    }
    return { format: "toolhost-trust-v1", projects };
  } catch {
    return { format: "toolhost-trust-v1", projects: {} };
  }
}
function isProjectConfigTrusted(dir, file, sha256) {
  return readTrustStore(dir).projects[file]?.sha256 === sha256;
}
function projectTrustEntry(dir, file) {
  return readTrustStore(dir).projects[file];
}
function writeProjectTrust(dir, file, sha256) {
  const store = readTrustStore(dir);
  const projects = { ...store.projects };
  if (sha256 === null) delete projects[file];
  else projects[file] = { sha256, trustedAt: (/* @__PURE__ */ new Date()).toISOString() };
  mkdirSync3(dir, { recursive: true, mode: 448 });
  const target = join4(dir, TRUST_STORE_FILE_NAME);
  const temporary = join4(dir, `.${TRUST_STORE_FILE_NAME}.${randomBytes2(6).toString("hex")}.tmp`);
  const body = `${JSON.stringify({ format: "toolhost-trust-v1", projects }, null, 2)}
`;
  const fd = openSync3(temporary, "wx", 384);
  try {
    writeSync2(fd, body);
    fsyncSync2(fd);
  } finally {
    closeSync3(fd);
  }
  try {
    renameSync2(temporary, target);
  } catch (error) {
    rmSync2(temporary, { force: true });
    throw error;
  }
}

// src/resolve-host-config.ts
var MAX_CONFIG_BYTES = 1024 * 1024;
var SANDBOX_ORDER = ["read_only", "workspace_write", "danger_full_access"];
var APPROVAL_ORDER = ["strict", "on_request", "never"];
var UNTRUSTED2 = "the project configuration is not trusted";
function fileError(file, problem, cause) {
  return new ToolhostError12({
    code: "CONFIG_INVALID",
    message: `${file}: (file): ${problem}`,
    details: { source: file, field: "(file)" },
    ...cause === void 0 ? {} : { cause }
  });
}
function readConfigFile(file, options = {}) {
  let fd;
  try {
    fd = openSync4(
      file,
      constants.O_RDONLY | constants.O_NONBLOCK | (options.refuseSymlink ? constants.O_NOFOLLOW : 0)
    );
  } catch (error) {
    const code = error.code;
    if (code === "ENOENT" && options.missingOk) return ok5(void 0);
    if (code === "ELOOP" && options.refuseSymlink) {
      return err5(
        fileError(
          file,
          "is a symbolic link; a project configuration is read only from a regular file inside the project (replace the link with the file itself, or pass --config)",
          error
        )
      );
    }
    return err5(fileError(file, `cannot read the configuration (${code ?? "unknown error"})`, error));
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return err5(fileError(file, "is not a regular file"));
    if (stat.size > MAX_CONFIG_BYTES) {
      return err5(fileError(file, `is larger than ${MAX_CONFIG_BYTES} bytes, the limit for a configuration`));
    }
    const bytes = Buffer.alloc(stat.size);
    let filled = 0;
    while (filled < bytes.length) {
      const read = readSync(fd, bytes, filled, bytes.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return ok5({ bytes: bytes.subarray(0, filled) });
  } catch (error) {
    return err5(fileError(file, "cannot read the configuration", error));
  } finally {
    closeSync4(fd);
  }
}
function loadLayer(role, setting, root, trusted) {
  if (typeof setting !== "string") {
    const parsed2 = parseHostConfig(setting, role === "user" ? "userConfig" : "options.config");
    return parsed2.ok ? ok5({ report: { role: "options", trusted: true }, config: parsed2.value }) : parsed2;
  }
  const file = resolve2(root, setting);
  const project = role === "project";
  const read = readConfigFile(file, { missingOk: project || role === "user", refuseSymlink: project });
  if (!read.ok) return read;
  if (read.value === void 0) return ok5(void 0);
  const sha256 = configDigest(read.value.bytes);
  const parsed = parseConfigText(read.value.bytes.toString("utf8"), file);
  if (!parsed.ok) return parsed;
  return ok5({
    report: { role, file, sha256, trusted: project ? trusted(file, sha256) : true },
    config: parsed.value
  });
}
function wider(order, candidate, ceiling) {
  return order.indexOf(candidate) > order.indexOf(ceiling);
}
function resolveHostConfig(options) {
  const root = options.root;
  const trustDir = options.userConfigDir ?? resolveUserConfigDir();
  const projectTrust = options.projectTrust ?? "store";
  const trusted = (file, sha256) => projectTrust === "store" ? isProjectConfigTrusted(trustDir, file, sha256) : projectTrust;
  const layers = [];
  if (options.userConfig !== void 0 && options.userConfig !== false) {
    const user = loadLayer("user", options.userConfig, root, trusted);
    if (!user.ok) return user;
    if (user.value) layers.push({ ...user.value, report: { ...user.value.report, role: "user" } });
  }
  if (options.config !== false) {
    const setting = options.config ?? join5(root, CONFIG_FILE_NAME);
    const role = options.config === void 0 ? "project" : "explicit";
    const layer = loadLayer(role, setting, root, trusted);
    if (!layer.ok) return layer;
    if (layer.value) layers.push(layer.value);
  }
  const ignored = [];
  const untrustedServers = /* @__PURE__ */ new Set();
  let merged = EMPTY_HOST_CONFIG;
  for (const layer of layers) {
    merged = layer.report.trusted ? mergeTrusted(merged, layer.config, root) : mergeUntrusted(merged, layer.config, ignored, untrustedServers);
  }
  const files = layers.map((layer) => layer.report.file).filter((file) => file !== void 0 && isInside(root, file));
  return ok5({
    config: merged,
    layers: layers.map((layer) => layer.report),
    ignored,
    untrustedServers,
    files
  });
}
function isInside(root, file) {
  const rel = file.startsWith(root) ? file.slice(root.length) : void 0;
  return rel !== void 0 && (rel === "" || rel.startsWith("/") || rel.startsWith("\\"));
}
function mergeTrusted(base, next, root) {
  return {
    mcpServers: { ...base.mcpServers, ...next.mcpServers },
    permissions: {
      allow: [...base.permissions.allow, ...next.permissions.allow],
      ask: [...base.permissions.ask, ...next.permissions.ask],
      deny: [...base.permissions.deny, ...next.permissions.deny]
    },
    protectedPaths: [...base.protectedPaths, ...next.protectedPaths],
    secretPaths: [...base.secretPaths, ...next.secretPaths],
    // Relative roots of every layer mean the project root, as they always have.
    allowedRoots: [
      ...base.allowedRoots,
      ...next.allowedRoots.map((entry) => isAbsolute2(entry) ? entry : resolve2(root, entry))
    ],
    defaults: { ...base.defaults, ...next.defaults },
    webFetch: {
      allowHosts: [.../* @__PURE__ */ new Set([...base.webFetch.allowHosts, ...next.webFetch.allowHosts])],
      allowPrivateNetwork: base.webFetch.allowPrivateNetwork || next.webFetch.allowPrivateNetwork
    },
    // Every trusted layer's hooks run, the user's own first.
    hooks: [...base.hooks, ...next.hooks],
    ...mergedKeys(base, next),
    ...mergeShellSettingsTrusted(base, next, root),
    ...next.audit !== void 0 ? { audit: next.audit } : base.audit !== void 0 ? { audit: base.audit } : {}
  };
}
function mergeUntrusted(base, next, ignored, untrustedServers) {
  const defaults = { ...base.defaults };
  const sandboxCeiling = base.defaults.sandbox ?? "read_only";
  if (next.defaults.sandbox !== void 0) {
    if (wider(SANDBOX_ORDER, next.defaults.sandbox, sandboxCeiling)) {
      ignored.push({
        field: "defaults.sandbox",
        reason: `${UNTRUSTED2}: it may not widen the sandbox beyond ${sandboxCeiling}`
      });
    } else defaults.sandbox = next.defaults.sandbox;
  }
  const approvalCeiling = base.defaults.approval ?? "on_request";
  if (next.defaults.approval !== void 0) {
    if (wider(APPROVAL_ORDER, next.defaults.approval, approvalCeiling)) {
      ignored.push({
        field: "defaults.approval",
        reason: `${UNTRUSTED2}: it may not ask less than ${approvalCeiling}`
      });
    } else defaults.approval = next.defaults.approval;
  }
  if (next.defaults.surface !== void 0) defaults.surface = next.defaults.surface;
  if (next.defaults.approvalTimeoutMs !== void 0)
    defaults.approvalTimeoutMs = next.defaults.approvalTimeoutMs;
  for (const index of next.permissions.allow.keys()) {
    ignored.push({
      field: `permissions.allow[${index}]`,
      reason: `${UNTRUSTED2}: it may not allow calls without asking`
    });
  }
  for (const index of next.allowedRoots.keys()) {
    ignored.push({ field: `allowedRoots[${index}]`, reason: `${UNTRUSTED2}: it may not add roots` });
  }
  const narrowPatterns = (key) => next[key].filter((pattern, index) => {
    if (!pattern.trimStart().startsWith("!")) return true;
    ignored.push({
      field: `${key}[${index}]`,
      reason: `${UNTRUSTED2}: an exception may not expose a protected or secret path`
    });
    return false;
  });
  const mcpServers = { ...base.mcpServers };
  for (const [name, server] of Object.entries(next.mcpServers)) {
    if (base.mcpServers[name] !== void 0) {
      ignored.push({
        field: `mcpServers.${name}`,
        reason: `${UNTRUSTED2}: it may not replace a server of your own configuration`
      });
      continue;
    }
    if (server.trusted === true) {
      ignored.push({
        field: `mcpServers.${name}.trusted`,
        reason: `${UNTRUSTED2}: its servers' hints are claims, not facts`
      });
    }
    const { trusted: _dropped, ...rest } = server;
    mcpServers[name] = rest;
    untrustedServers.add(name);
  }
  for (const index of next.webFetch.allowHosts.keys()) {
    ignored.push({
      field: `webFetch.allowHosts[${index}]`,
      reason: `${UNTRUSTED2}: it may not let web_fetch reach local or private hosts`
    });
  }
  if (next.webFetch.allowPrivateNetwork) {
    ignored.push({
      field: "webFetch.allowPrivateNetwork",
      reason: `${UNTRUSTED2}: it may not let web_fetch reach local or private hosts`
    });
  }
  for (const hook of next.hooks) {
    ignored.push({ field: hook.id, reason: `${UNTRUSTED2}: its hooks are commands, which it may not run` });
  }
  let audit = base.audit;
  if (next.audit !== void 0) {
    if (typeof next.audit === "string") {
      ignored.push({
        field: "audit",
        reason: `${UNTRUSTED2}: it may not choose where the host writes (use true for the state directory)`
      });
    } else if (audit === void 0 || typeof audit === "boolean") audit = next.audit || audit;
  }
  return {
    mcpServers,
    permissions: {
      allow: [...base.permissions.allow],
      ask: [...base.permissions.ask, ...next.permissions.ask],
      deny: [...base.permissions.deny, ...next.permissions.deny]
    },
    protectedPaths: [...base.protectedPaths, ...narrowPatterns("protectedPaths")],
    secretPaths: [...base.secretPaths, ...narrowPatterns("secretPaths")],
    allowedRoots: [...base.allowedRoots],
    defaults,
    webFetch: base.webFetch,
    hooks: base.hooks,
    // Ignoring undeclared keys a client adds widens nothing: a declared property is never dropped.
    ...mergedKeys(base, next),
    // The shell's network, extra roots and environment widen; exclusions and lower limits narrow.
    ...mergeShellSettingsUntrusted(base, next, ignored),
    ...audit === void 0 ? {} : { audit }
  };
}
function mergedKeys(base, next) {
  if (base.clientInjectedKeys === void 0 && next.clientInjectedKeys === void 0) return {};
  return {
    clientInjectedKeys: [
      .../* @__PURE__ */ new Set([...base.clientInjectedKeys ?? [], ...next.clientInjectedKeys ?? []])
    ]
  };
}

// src/host-settings.ts
var SANDBOXES2 = ["read_only", "workspace_write", "danger_full_access"];
var APPROVALS2 = ["strict", "on_request", "never"];
var SURFACES2 = ["lean", "full"];
var PLATFORMS = ["posix", "windows"];
var DEFAULT_APPROVAL_TIMEOUT_MS = 12e4;
function configError(field, problem, cause) {
  return new ToolhostError13({
    code: "CONFIG_INVALID",
    message: `options: ${field}: ${problem}`,
    details: { source: "options", field },
    ...cause === void 0 ? {} : { cause }
  });
}
function oneOf(field, value, allowed, fallback) {
  if (value === void 0) return fallback;
  if (!allowed.includes(value)) throw configError(field, `expected one of ${allowed.join(", ")}`);
  return value;
}
function resolveHostSettings(options) {
  const rootInput = resolve3(options.root ?? process.cwd());
  try {
    if (!statSync3(rootInput).isDirectory()) throw configError("root", "is not a directory");
  } catch (error) {
    if (ToolhostError13.isInstance(error)) throw error;
    throw configError("root", "does not exist or cannot be read", error);
  }
  const realRoot = realpathSync2(rootInput);
  const userConfigDir = options.userConfigDir ?? resolveUserConfigDir();
  const resolvedConfig = resolveHostConfig({
    root: realRoot,
    ...options.config === void 0 ? {} : { config: options.config },
    ...options.userConfig === void 0 ? {} : { userConfig: options.userConfig },
    projectTrust: options.projectConfigTrust ?? "store",
    userConfigDir
  });
  if (!resolvedConfig.ok) throw resolvedConfig.error;
  const config = resolvedConfig.value.config;
  const untrustedServers = resolvedConfig.value.untrustedServers;
  const sandbox = oneOf("sandbox", options.sandbox, SANDBOXES2, config.defaults.sandbox ?? "read_only");
  const approval = oneOf("approval", options.approval, APPROVALS2, config.defaults.approval ?? "on_request");
  const surface = oneOf("surface", options.surface, SURFACES2, config.defaults.surface ?? "lean");
  const platform = oneOf(
    "platform",
    options.platform,
    PLATFORMS,
    process.platform === "win32" ? "windows" : "posix"
  );
  const approvalTimeoutMs = options.approvalTimeoutMs ?? config.defaults.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  if (!Number.isInteger(approvalTimeoutMs) || approvalTimeoutMs < 1) {
    throw configError("approvalTimeoutMs", "expected a positive integer");
  }
  if (options.approve !== void 0 && typeof options.approve !== "function") {
    throw configError("approve", "expected a function");
  }
  const stateDir = resolve3(rootInput, options.stateDir ?? ".toolhost");
  const allowedRoots = [...config.allowedRoots, ...options.allowedRoots ?? []].map(
    (root2) => resolve3(rootInput, root2)
  );
  const rules = (() => {
    try {
      return createPermissionRules(config.permissions);
    } catch (error) {
      throw configError("permissions", errorMessage4(error), error);
    }
  })();
  const stateRelative = relative2(rootInput, stateDir);
  const stateInsideRoot = stateRelative !== "" && !stateRelative.startsWith("..") && !isAbsolute3(stateRelative);
  const statePatterns = stateInsideRoot ? [`/${stateRelative.split(/[\\/]/).join("/")}/**`] : [];
  const configPatterns = [
    CONFIG_FILE_NAME,
    ...resolvedConfig.value.files.map((file) => anchoredPattern(realRoot, file)).filter(isString)
  ];
  const userDirPatterns = [realRoot, ...allowedRoots].map((base) => anchoredPattern(base, userConfigDir, true)).filter(isString);
  const protectedPaths = [
    ...DEFAULT_PROTECTED_PATHS,
    ...configPatterns,
    ...config.protectedPaths,
    ...userDirPatterns,
    ...statePatterns
  ];
  const secretPaths = [...DEFAULT_SECRET_PATHS, ...config.secretPaths, ...userDirPatterns, ...statePatterns];
  let pathPolicy;
  try {
    pathPolicy = createPathPolicy({
      mode: sandbox === "danger_full_access" ? "danger_full_access" : allowedRoots.length > 0 ? "allowed_roots" : "current_project",
      root: rootInput,
      allowedRoots: sandbox === "danger_full_access" ? allowedRoots : [rootInput, ...allowedRoots],
      protectedPaths,
      secretPaths
    });
  } catch (error) {
    throw configError("allowedRoots", errorMessage4(error), error);
  }
  const root = pathPolicy.roots[0] ?? rootInput;
  if (options.network !== void 0 && typeof options.network !== "boolean") {
    throw configError("network", "expected true or false");
  }
  const shellSandbox = resolveShellSandbox({
    sandbox: config.sandbox,
    shellEnvironment: config.shellEnvironment,
    network: options.network,
    pathPolicy,
    stateDir,
    userConfigDir
  });
  return {
    rootInput,
    root,
    config,
    configReport: { layers: resolvedConfig.value.layers, ignored: resolvedConfig.value.ignored },
    untrustedServers,
    sandbox,
    approval,
    surface,
    platform,
    approvalTimeoutMs,
    stateDir,
    userConfigDir,
    rules,
    pathPolicy,
    shellSandbox
  };
}
function isString(value) {
  return value !== void 0;
}
function anchoredPattern(base, target, directory = false) {
  const rel = relative2(base, target);
  if (rel === "" || rel.startsWith("..") || isAbsolute3(rel)) return void 0;
  const names = rel.split(/[\\/]/).join("/");
  return directory ? `/${names}/**` : `/${names}`;
}

// src/session-snapshot.ts
import { ToolhostError as ToolhostError14 } from "@toolhost/contracts";
function restoreError(problem, cause) {
  return new ToolhostError14({
    code: "CONFIG_INVALID",
    message: `options: restore: ${problem}`,
    details: { source: "options", field: "restore" },
    ...cause === void 0 ? {} : { cause }
  });
}
function hostSnapshotOf(snapshot) {
  return {
    format: "toolhost-host-v1",
    root: snapshot.root,
    takenAt: snapshot.takenAt,
    surfaceFingerprint: snapshot.surfaceFingerprint,
    observations: snapshot.observations,
    jobs: snapshot.jobs,
    results: snapshot.results,
    sessionId: snapshot.id,
    todos: snapshot.todos ?? [],
    goal: snapshot.goal ?? null,
    deliverables: snapshot.deliverables ?? []
  };
}
function checkRestoreSnapshot(value, root) {
  if (typeof value !== "object" || value === null) {
    throw restoreError("expected a snapshot taken by Host.snapshot() or Session.snapshot()");
  }
  const snapshot = value;
  const format = snapshot.format;
  if (format !== "toolhost-host-v1" && format !== "toolhost-session-v1" || typeof snapshot.observations !== "object" || snapshot.observations === null || !Array.isArray(snapshot.results)) {
    throw restoreError(
      "expected a snapshot taken by Host.snapshot() (format toolhost-host-v1) or Session.snapshot()"
    );
  }
  if (snapshot.root !== root) throw restoreError("the snapshot was taken over another project root");
  const sessionId = format === "toolhost-session-v1" ? snapshot.id : snapshot.sessionId;
  return {
    sessionId: typeof sessionId === "string" ? sessionId : void 0,
    observations: snapshot.observations,
    jobs: Array.isArray(snapshot.jobs) ? snapshot.jobs : [],
    results: snapshot.results,
    todos: snapshot.todos,
    goal: snapshot.goal,
    deliverables: snapshot.deliverables
  };
}

// src/subagent-service.ts
import { join as join7 } from "path";
import {
  err as err7,
  ok as ok7,
  ToolhostError as ToolhostError16,
  toToolhostError as toToolhostError2,
  utf8Prefix as utf8Prefix2
} from "@toolhost/contracts";

// src/subagent-store.ts
import { createHash as createHash2, randomBytes as randomBytes3 } from "crypto";
import {
  closeSync as closeSync5,
  constants as constants2,
  fstatSync as fstatSync2,
  mkdirSync as mkdirSync4,
  mkdtempSync,
  openSync as openSync5,
  readSync as readSync2,
  renameSync as renameSync3,
  rmSync as rmSync3,
  writeFileSync as writeFileSync2
} from "fs";
import { tmpdir } from "os";
import { join as join6 } from "path";
import { pageBody } from "@toolhost/capability-proxy";
import { err as err6, ok as ok6, ToolhostError as ToolhostError15, utf8Prefix } from "@toolhost/contracts";

// src/subagent-types.ts
var MAX_SUBAGENT_ANSWER_BYTES = 8 * 1024 * 1024;
var MAX_SUBAGENT_STATE_BYTES = 64 * 1024 * 1024;

// src/subagent-store.ts
var SUBAGENT_REFERENCE_PATTERN = /^sa_[0-9a-f]{24}$/;
var ANSWER_FILE_PATTERN = /^sa_[0-9a-f]{24}\.[0-9a-f]{16}\.answer\.txt$/;
var STATE_FILE_PATTERN = /^sa_[0-9a-f]{24}\.\d{1,6}\.state\.json$/;
var MAX_RECORD_BYTES = 1024 * 1024;
var STATUSES = /* @__PURE__ */ new Set(["completed", "partial", "failed", "cancelled"]);
var NO_FOLLOW = constants2.O_NOFOLLOW ?? 0;
function newSubagentReference() {
  return `sa_${randomBytes3(12).toString("hex")}`;
}
function createSubagentStore(options) {
  const temporary = options.dir === void 0;
  const dir = options.dir ?? mkdtempSync(join6(tmpdir(), "toolhost-subagents-"));
  mkdirSync4(dir, { recursive: true, mode: 448 });
  let closed = false;
  const read = (reference) => {
    if (typeof reference !== "string" || !SUBAGENT_REFERENCE_PATTERN.test(reference.trim())) {
      return err6(notFound2("this is not a Subagent reference (sa_ followed by 24 hex characters)", "invalid"));
    }
    const ref = reference.trim();
    const text = readBounded(join6(dir, `${ref}.json`), MAX_RECORD_BYTES);
    if (text === void 0) {
      return err6(
        notFound2(
          "no subagent result with this reference exists in this session's lineage (this session, its parent and its subagents) in this project",
          "unknown"
        )
      );
    }
    const record = parseRecord(text, ref);
    if (!record) return err6(notFound2("the record of this subagent result is unreadable", "unreadable"));
    if (record.root !== options.root) {
      return err6(notFound2("this subagent result belongs to another project root", "other_root"));
    }
    if (record.lineageId !== options.lineageId) {
      return err6(notFound2("this subagent result belongs to another session's lineage", "other_lineage"));
    }
    return ok6(record);
  };
  const writeFile = (name, data) => {
    const target = join6(dir, name);
    const temporaryFile = join6(dir, `.${name}.${randomBytes3(6).toString("hex")}.tmp`);
    try {
      writeFileSync2(temporaryFile, data, { mode: 384, flag: "wx" });
      renameSync3(temporaryFile, target);
    } catch (error) {
      rmSync3(temporaryFile, { force: true });
      throw error;
    }
  };
  return {
    dir,
    read,
    write(input) {
      if (closed) throw new Error("the subagent store is closed");
      const previous = read(input.reference);
      const cut = utf8Prefix(input.answer, MAX_SUBAGENT_ANSWER_BYTES);
      const bytes = Buffer.from(cut, "utf8");
      const sha = createHash2("sha256").update(bytes).digest("hex");
      const answerFile = `${input.reference}.${sha.slice(0, 16)}.answer.txt`;
      writeFile(answerFile, bytes);
      let stateFile;
      let retryable = input.retryable;
      if (input.state === "keep") {
        stateFile = previous.ok ? previous.value.stateFile : void 0;
      } else if (input.state !== void 0) {
        const json = JSON.stringify(input.state);
        if (Buffer.byteLength(json, "utf8") <= MAX_SUBAGENT_STATE_BYTES) {
          stateFile = `${input.reference}.${input.runs}.state.json`;
          writeFile(stateFile, json);
        } else {
          retryable = false;
        }
      }
      const record = {
        format: "toolhost-subagent-v1",
        reference: input.reference,
        lineageId: options.lineageId,
        root: options.root,
        parentSessionId: input.parentSessionId,
        description: input.description,
        readOnly: input.readOnly,
        status: input.status,
        retryable,
        runs: input.runs,
        sessionIds: [...input.sessionIds],
        transcripts: [...input.transcripts],
        answerFile,
        answerBytes: bytes.length,
        answerSha256: sha,
        ...cut.length < input.answer.length ? { answerTruncated: true } : {},
        ...stateFile ? { stateFile } : {},
        ...input.error ? { error: { code: input.error.code, message: input.error.message } } : {},
        createdAt: input.createdAt,
        updatedAt: (/* @__PURE__ */ new Date()).toISOString()
      };
      writeFile(`${input.reference}.json`, JSON.stringify(record));
      if (previous.ok) {
        if (previous.value.answerFile !== answerFile)
          rmSync3(join6(dir, previous.value.answerFile), { force: true });
        if (previous.value.stateFile && previous.value.stateFile !== stateFile) {
          rmSync3(join6(dir, previous.value.stateFile), { force: true });
        }
      }
      return record;
    },
    readAnswer(record) {
      const text = readBounded(join6(dir, record.answerFile), record.answerBytes);
      if (text === void 0 || Buffer.byteLength(text, "utf8") !== record.answerBytes) return void 0;
      return createHash2("sha256").update(text, "utf8").digest("hex") === record.answerSha256 ? text : void 0;
    },
    readState(record) {
      if (!record.stateFile) return void 0;
      const text = readBounded(join6(dir, record.stateFile), MAX_SUBAGENT_STATE_BYTES);
      if (text === void 0) return void 0;
      try {
        return JSON.parse(text);
      } catch {
        return void 0;
      }
    },
    page(reference, pageOptions) {
      const found = read(reference);
      if (!found.ok) return found;
      const record = found.value;
      const unavailable = () => notFound2(
        "the answer of this subagent result is no longer readable; run the task again",
        "answer_unavailable"
      );
      let fd;
      try {
        fd = openSync5(join6(dir, record.answerFile), constants2.O_RDONLY | NO_FOLLOW);
      } catch {
        return err6(unavailable());
      }
      try {
        const info = fstatSync2(fd);
        if (!info.isFile() || info.size !== record.answerBytes) return err6(unavailable());
        return pageBody(
          {
            ref: record.reference,
            totalBytes: record.answerBytes,
            sha256: record.answerSha256,
            read: (start, end) => readRange(fd, start, end),
            unavailable
          },
          pageOptions
        );
      } finally {
        closeSync5(fd);
      }
    },
    close() {
      if (closed) return;
      closed = true;
      if (temporary) rmSync3(dir, { recursive: true, force: true });
    }
  };
}
function notFound2(message, reason) {
  return new ToolhostError15({ code: "SUBAGENT_NOT_FOUND", message, details: { reason } });
}
function readBounded(path, max) {
  let fd;
  try {
    fd = openSync5(path, constants2.O_RDONLY | NO_FOLLOW);
  } catch {
    return void 0;
  }
  try {
    const info = fstatSync2(fd);
    if (!info.isFile() || info.size > max) return void 0;
    const buffer = readRange(fd, 0, info.size);
    return buffer?.toString("utf8");
  } catch {
    return void 0;
  } finally {
    closeSync5(fd);
  }
}
function readRange(fd, start, end) {
  const buffer = Buffer.alloc(end - start);
  let filled = 0;
  while (filled < buffer.length) {
    const count = readSync2(fd, buffer, filled, buffer.length - filled, start + filled);
    if (count === 0) return void 0;
    filled += count;
  }
  return buffer;
}
function isStringArray(value) {
  return Array.isArray(value) && value.every((entry) => typeof entry === "string");
}
function parseRecord(text, reference) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return void 0;
  }
  if (typeof value !== "object" || value === null) return void 0;
  const record = value;
  const strings = ["lineageId", "root", "parentSessionId", "description", "createdAt", "updatedAt"];
  if (record.format !== "toolhost-subagent-v1" || record.reference !== reference) return void 0;
  if (!strings.every((key) => typeof record[key] === "string")) return void 0;
  if (typeof record.status !== "string" || !STATUSES.has(record.status)) return void 0;
  if (typeof record.readOnly !== "boolean" || typeof record.retryable !== "boolean") return void 0;
  if (!Number.isSafeInteger(record.runs) || record.runs < 1) return void 0;
  if (!isStringArray(record.sessionIds) || !isStringArray(record.transcripts)) return void 0;
  if (typeof record.answerFile !== "string" || !ANSWER_FILE_PATTERN.test(record.answerFile)) return void 0;
  if (!record.answerFile.startsWith(`${reference}.`)) return void 0;
  if (!Number.isSafeInteger(record.answerBytes) || record.answerBytes < 0) return void 0;
  if (typeof record.answerSha256 !== "string" || !/^[0-9a-f]{64}$/.test(record.answerSha256))
    return void 0;
  if (record.stateFile !== void 0) {
    if (typeof record.stateFile !== "string" || !STATE_FILE_PATTERN.test(record.stateFile)) return void 0;
    if (!record.stateFile.startsWith(`${reference}.`)) return void 0;
  }
  if (record.error !== void 0) {
    const error = record.error;
    if (typeof error !== "object" || error === null) return void 0;
    if (typeof error.code !== "string" || typeof error.message !== "string") return void 0;
  }
  return record;
}

// src/subagent-service.ts
var MAX_SUBAGENT_DEPTH = 1;
var SETTLE_ON_CLOSE_MS = 1e4;
function createSubagentService(host) {
  const stores = /* @__PURE__ */ new Map();
  const active = /* @__PURE__ */ new Map();
  let closed = false;
  const storeOf = (caller) => {
    let store = stores.get(caller.lineageId);
    if (!store) {
      store = createSubagentStore({
        ...caller.persistent ? { dir: join7(sessionDir(host.stateDir, caller.lineageId), "subagents") } : {},
        lineageId: caller.lineageId,
        root: host.root
      });
      stores.set(caller.lineageId, store);
    }
    return store;
  };
  const callerOf = (context) => {
    const caller = host.caller(context.sessionId);
    if (!caller || closed) {
      return err7(
        new ToolhostError16({
          code: "EXECUTION_ERROR",
          message: `"${context.toolName}" was called outside an open session of this host`,
          recovery: "dispatch calls through a session (host.openSession) or the host"
        })
      );
    }
    return ok7(caller);
  };
  async function plan(store, tasks) {
    const planned = [];
    const seen = /* @__PURE__ */ new Set();
    for (const task of tasks) {
      const continued = task.continue_from?.trim();
      if (continued === void 0) {
        planned.push({
          task,
          reference: newSubagentReference(),
          readOnly: task.read_only === true,
          previous: void 0,
          resume: void 0
        });
        continue;
      }
      await active.get(continued);
      const found = store.read(continued);
      if (!found.ok) return found;
      const record = found.value;
      if (seen.has(record.reference) || active.has(record.reference)) {
        return err7(
          new ToolhostError16({
            code: "SUBAGENT_NOT_FOUND",
            message: `the subagent ${record.reference} is already running; continue it once, after it stopped`,
            recovery: null,
            details: { reason: "running" }
          })
        );
      }
      if (!record.retryable) {
        return err7(
          new ToolhostError16({
            code: "SUBAGENT_NOT_FOUND",
            message: `the subagent ${record.reference} is ${record.status} and not retryable, so it cannot be continued`,
            recovery: "read its answer with read_subagent_result, or start a new task",
            details: { reason: "not_retryable", status: record.status }
          })
        );
      }
      seen.add(record.reference);
      planned.push({
        task,
        reference: record.reference,
        // A continuation keeps the policy of the subagent it continues.
        readOnly: record.readOnly,
        previous: record,
        resume: {
          state: store.readState(record),
          status: record.status,
          answer: store.readAnswer(record) ?? "",
          runs: record.runs
        }
      });
    }
    return ok7(planned);
  }
  async function runOne(caller, store, run, signal) {
    const { task, reference, readOnly, previous, resume } = run;
    const createdAt = previous?.createdAt ?? (/* @__PURE__ */ new Date()).toISOString();
    const runs = (previous?.runs ?? 0) + 1;
    const description = task.description;
    const persist = (outcome, sessionId, state) => {
      const retryable = outcome.retryable ?? outcome.status !== "completed";
      const record = store.write({
        reference,
        parentSessionId: caller.session.id,
        description,
        readOnly,
        status: outcome.status,
        retryable,
        runs,
        sessionIds: [...previous?.sessionIds ?? [], ...sessionId ? [sessionId] : []],
        transcripts: [...previous?.transcripts ?? [], ...outcome.transcript ? [outcome.transcript] : []],
        error: outcome.error,
        createdAt,
        answer: outcome.answer,
        state
      });
      host.emit("subagent-finished", {
        sessionId: caller.session.id,
        reference,
        childSessionId: sessionId,
        status: record.status,
        retryable: record.retryable,
        runs,
        answerBytes: record.answerBytes,
        ...record.error ? { code: record.error.code } : {}
      });
      return summaryOf(record, outcome.answer);
    };
    const stoppedBefore = () => ({
      status: "cancelled",
      answer: resume?.answer ?? "",
      retryable: true
    });
    if (signal.aborted) return persist(stoppedBefore(), void 0, "keep");
    let child;
    try {
      child = await caller.session.openChild(readOnly ? { readOnlyStrict: true } : {});
    } catch (error) {
      const failure = toToolhostError2(error);
      return persist(
        {
          status: "failed",
          answer: resume?.answer ?? "",
          retryable: resume !== void 0,
          error: { code: failure.code, message: failure.message }
        },
        void 0,
        "keep"
      );
    }
    host.emit("subagent-started", {
      sessionId: caller.session.id,
      reference,
      childSessionId: child.id,
      readOnly,
      runs
    });
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    let toldCancelled = false;
    let finalWritten = false;
    const running = (async () => host.runner.run({
      reference,
      description,
      prompt: task.prompt,
      readOnly,
      session: child,
      parentSessionId: caller.session.id,
      ...resume ? { resume } : {},
      signal: controller.signal
    }))().then(
      (outcome) => normalizeOutcome(outcome, controller.signal.aborted),
      (error) => {
        const failure = toToolhostError2(error);
        return {
          status: controller.signal.aborted ? "cancelled" : "failed",
          answer: resume?.answer ?? "",
          error: { code: failure.code, message: failure.message }
        };
      }
    );
    const finished = (async () => {
      let outcome = await running;
      signal.removeEventListener("abort", onAbort);
      if (toldCancelled) outcome = { ...outcome, status: "cancelled", retryable: true };
      try {
        finalWritten = true;
        return persist(outcome, child.id, outcome.state);
      } finally {
        await child.close().catch(() => void 0);
      }
    })();
    active.set(
      reference,
      finished.then(
        () => void 0,
        () => void 0
      ).finally(() => active.delete(reference))
    );
    const stopped2 = new Promise((resolve5) => {
      if (controller.signal.aborted) resolve5("stopped");
      else controller.signal.addEventListener("abort", () => resolve5("stopped"), { once: true });
    });
    const first = await Promise.race([finished, stopped2]);
    if (first !== "stopped") return first;
    toldCancelled = true;
    if (finalWritten) return finished;
    return persist(stoppedBefore(), child.id, "keep");
  }
  const service = {
    async run(tasks, context) {
      const found = callerOf(context);
      if (!found.ok) return found;
      const caller = found.value;
      if (caller.depth >= MAX_SUBAGENT_DEPTH) {
        return err7(
          new ToolhostError16({
            code: "PERMISSION_DENIED",
            message: "a subagent may not start subagents of its own",
            recovery: "do the work yourself, or answer and let the agent that started you delegate it",
            details: { toolName: context.toolName, decisionSource: "host" }
          })
        );
      }
      const store = storeOf(caller);
      const planned = await plan(store, tasks);
      if (!planned.ok) return planned;
      const summaries = await Promise.all(
        planned.value.map((run) => runOne(caller, store, run, context.signal))
      );
      return ok7(summaries);
    },
    async read(args, context) {
      const found = callerOf(context);
      if (!found.ok) return found;
      const page = storeOf(found.value).page(args.reference, {
        ...args.offset === void 0 ? {} : { offset: args.offset },
        ...args.limit === void 0 ? {} : { limit: args.limit }
      });
      if (!page.ok) return page;
      const { header } = page.value;
      return ok7({
        text: page.value.text,
        details: {
          reference: header.result_ref,
          offset: header.offset,
          nextOffset: header.next_offset,
          totalBytes: header.total_bytes,
          complete: header.complete
        }
      });
    }
  };
  return {
    service,
    async close() {
      closed = true;
      let timer;
      await Promise.race([
        Promise.allSettled([...active.values()]),
        new Promise((resolve5) => {
          timer = setTimeout(resolve5, SETTLE_ON_CLOSE_MS);
          timer.unref();
        })
      ]);
      clearTimeout(timer);
      for (const store of stores.values()) store.close();
      stores.clear();
    }
  };
}
var STATUSES2 = /* @__PURE__ */ new Set(["completed", "partial", "failed", "cancelled"]);
function normalizeOutcome(outcome, aborted) {
  const value = typeof outcome === "object" && outcome !== null ? outcome : {};
  let status = STATUSES2.has(value.status) ? value.status : "failed";
  if (aborted && status !== "completed") status = "cancelled";
  const error = value.error && typeof value.error.code === "string" && typeof value.error.message === "string" ? { code: value.error.code, message: value.error.message.slice(0, 1e3) } : status === "failed" && !STATUSES2.has(value.status) ? { code: "EXECUTION_ERROR", message: "the subagent runner returned a malformed outcome" } : void 0;
  return {
    status,
    answer: typeof value.answer === "string" ? value.answer : "",
    ...typeof value.retryable === "boolean" ? { retryable: value.retryable } : {},
    ...value.state === void 0 ? {} : { state: value.state },
    ...error ? { error } : {},
    ...typeof value.transcript === "string" ? { transcript: value.transcript } : {}
  };
}
function summaryOf(record, answer) {
  return {
    reference: record.reference,
    description: record.description,
    status: record.status,
    retryable: record.retryable,
    readOnly: record.readOnly,
    // What was kept (a longer answer is cut on a character boundary), so preview and pages agree.
    answer: utf8Prefix2(answer, record.answerBytes),
    answerSha256: record.answerSha256,
    runs: record.runs,
    ...record.error ? { error: record.error } : {}
  };
}

// src/create-host.ts
async function createHost(options = {}) {
  const settings = resolveHostSettings(options);
  const { root, stateDir, pathPolicy, sandbox, approval, surface, platform } = settings;
  const restored = options.restore === void 0 ? void 0 : checkRestoreSnapshot(options.restore, root);
  const hostController = new AbortController();
  setMaxListeners2(0, hostController.signal);
  const disposers = [];
  try {
    ensureStateDir(stateDir);
    const pruned = pruneSessions(stateDir, {
      maxAgeMs: options.sessionRetention?.maxAgeMs ?? DEFAULT_SESSION_MAX_AGE_MS,
      maxBytes: options.sessionRetention?.maxBytes ?? DEFAULT_SESSIONS_MAX_BYTES
    });
    const services = /* @__PURE__ */ new Map();
    const servicesOf = (context) => {
      const found = context.sessionId === void 0 ? void 0 : services.get(context.sessionId);
      if (!found) {
        throw new ToolhostError17({
          code: "EXECUTION_ERROR",
          message: `"${context.toolName}" was called outside an open session of this host`,
          recovery: "dispatch calls through a session (host.openSession) or the host"
        });
      }
      return found;
    };
    const jobSandbox = {
      roots: pathPolicy.roots,
      protectedPaths: pathPolicy.protectedPatterns,
      secretPaths: pathPolicy.secretPatterns,
      // The user configuration directory (MCP sign-in tokens, the trust store) is the user's, never a
      // command's: outside the roots it is hidden from sandboxed jobs wherever the sandbox's view would
      // show it (inside, the secret patterns do it). The store is named too: a configuration
      // directory that contains a root is not hidden itself.
      hiddenDirectories: [settings.userConfigDir, join8(settings.userConfigDir, MCP_OAUTH_DIR_NAME)],
      network: settings.shellSandbox.network,
      caseSensitive: pathPolicy.caseSensitive,
      writableRoots: settings.shellSandbox.writableRoots,
      readableRoots: settings.shellSandbox.readableRoots,
      maxPlanEntries: settings.shellSandbox.maxPlanEntries,
      // One private /tmp per session, kept across its commands and removed when it closes.
      persistentTmp: true
    };
    reapCrashedSessionJobs(stateDir, jobSandbox);
    try {
      normalizeSandboxOptions({ ...jobSandbox, mode: sandbox });
    } catch (error) {
      throw configError2("sandbox", errorMessage5(error), error);
    }
    const registry = createToolRegistry();
    const builtins = [
      ...createShellTools({ jobs: (context) => servicesOf(context).jobs, pathPolicy, platform }),
      ...createFileTools({
        pathPolicy,
        observations: (context) => servicesOf(context).observations
      }),
      ...createDiscoveryTools({
        pathPolicy,
        ...options.rgPath === void 0 ? {} : { rgPath: options.rgPath }
      }),
      // The rest of the built-in table: off the lean surface, reachable as tool:<name>.
      ...createStructuredEditTools({
        pathPolicy,
        observations: (context) => servicesOf(context).observations
      }),
      createCodeIndexTool({ pathPolicy, cacheDir: join8(stateDir, "code-index") }),
      createWebFetchTool({
        allowHosts: settings.config.webFetch.allowHosts,
        allowPrivateNetwork: settings.config.webFetch.allowPrivateNetwork,
        // A redirect to another host is followed only when the rules decide both hosts alike, so
        // web_fetch(domain:...) rules cannot be stepped around by a redirect.
        followRedirect: (from, to) => settings.rules.match("web_fetch", from)?.rule === settings.rules.match("web_fetch", to)?.rule
      }),
      // The session tools: their state lives in the calling session (and its snapshot).
      ...createSessionTools({
        state: (context) => servicesOf(context).state,
        pathPolicy,
        conversationTools: options.conversationTools === true
      }),
      // Hidden: only a plan-mode session's surface lists it.
      createExitPlanModeTool({ planOf: (context) => servicesOf(context).plan })
    ];
    const lineages = /* @__PURE__ */ new Map();
    const subagents = options.subagents ? createSubagentService({
      root,
      stateDir,
      runner: options.subagents,
      caller: (id) => {
        const session = id === void 0 ? void 0 : open.get(id);
        const lineage = id === void 0 ? void 0 : lineages.get(id);
        return session && lineage && !session.closed ? { session, ...lineage } : void 0;
      },
      emit: (type, fields) => audit.emit(type, fields)
    }) : void 0;
    if (subagents) disposers.push(() => subagents.close());
    const subagentTools = subagents ? createSubagentTools({ subagents: subagents.service, outputBytes: MAX_MODEL_RESULT_BYTES - 1024 }) : [];
    for (const tool of subagentTools) if (tool.name !== "read_subagent_result") markDelegatingTool(tool);
    builtins.push(...subagentTools);
    for (const tool of [...builtins, ...options.tools ?? []]) {
      try {
        registry.register(tool);
      } catch (error) {
        throw configError2("tools", errorMessage5(error), error);
      }
    }
    let proxy;
    try {
      proxy = createCapabilityProxy({
        stateDir,
        mcpServers: settings.config.mcpServers,
        // Sign-ins made with `toolhost mcp login` (the user's, never the project's).
        oauthStoreDir: join8(settings.userConfigDir, MCP_OAUTH_DIR_NAME),
        // The root frontend serves no model: every session has its own (fail closed if one is used).
        authorize: async (request) => ({
          allowed: false,
          error: new ToolhostError17({
            code: "PERMISSION_DENIED",
            message: `"${request.toolName}" was asked outside a session`
          })
        }),
        cwd: settings.rootInput
      });
    } catch (error) {
      if (ToolhostError17.isInstance(error)) throw error;
      throw configError2("mcpServers", errorMessage5(error), error);
    }
    disposers.push(() => proxy.close());
    registry.register(sessionProxyTool(proxy, (context) => servicesOf(context).proxy));
    const surfaceFor = createHostSurfaces({
      registry,
      platform,
      candidates: /* @__PURE__ */ new Set([...builtins.map((tool) => tool.name), USE_CAPABILITY])
    });
    const hostPlan = options.plan === true;
    const hostSurface = surfaceFor(sandbox, surface, false, hostPlan);
    const extensions = checkExtensions(options.extensions);
    const hooks = settings.config.hooks.length > 0 ? createHookRunner({ hooks: settings.config.hooks, cwd: root }) : void 0;
    const audit = openAudit(options, settings);
    audit.emit("host-created", {
      root,
      sandbox,
      approval,
      surface,
      platform,
      surfaceFingerprint: hostSurface.fingerprint,
      surfaceNames: [...hostSurface.names],
      tools: registry.size
    });
    if (settings.configReport.ignored.length > 0) {
      audit.emit("config-resolved", {
        layers: settings.configReport.layers.map(({ role, file, trusted }) => ({ role, file, trusted })),
        ignored: settings.configReport.ignored.map((entry) => entry.field)
      });
    }
    if (pruned.removed.length > 0) audit.emit("sessions-pruned", { removed: pruned.removed.length });
    const stragglers = /* @__PURE__ */ new Set();
    const open = /* @__PURE__ */ new Map();
    const sessionApprovers = /* @__PURE__ */ new WeakMap();
    const ceiling = { sandbox, approval, surface };
    const registryRef = registry;
    const shellName = registry.has(shellToolName(platform)) ? shellToolName(platform) : registry.has("bash") ? "bash" : registry.has("pwsh") ? "pwsh" : void 0;
    let closing;
    const clientInjectedKeys = /* @__PURE__ */ new Set([
      ...DEFAULT_CLIENT_INJECTED_KEYS,
      ...settings.config.clientInjectedKeys ?? [],
      ...options.clientInjectedKeys ?? []
    ]);
    const start = (input) => {
      if (closing) throw new ToolhostError17({ code: "EXECUTION_ERROR", message: "the host is closing" });
      if (open.has(input.id))
        throw configError2("sessionId", `session ${input.id} is already open in this host`);
      const readOnlyStrict = input.options.readOnlyStrict === true;
      const parentCeiling = input.parent?.planning ? { ...input.parent.policy, sandbox: "read_only" } : input.parent?.policy;
      const policy = narrowPolicy(parentCeiling ?? ceiling, input.options, readOnlyStrict);
      const approveFor = input.options.approve ?? (input.parent ? sessionApprovers.get(input.parent) : void 0) ?? options.approve;
      const parentLineage = input.parent ? lineages.get(input.parent.id) : void 0;
      const session = createSession(
        {
          root,
          stateDir,
          registry: registryRef,
          validator: sharedArgumentValidator(),
          platform,
          rules: settings.rules,
          pathPolicy,
          jobSandbox,
          jobEnvironment: settings.shellSandbox.environment,
          approve: options.approve,
          approvalTimeoutMs: settings.approvalTimeoutMs,
          audit,
          hostSignal: hostController.signal,
          proxy,
          untrustedServers: settings.untrustedServers,
          shellName,
          clientInjectedKeys,
          hooks,
          extensions,
          surfaceFor,
          conversationTools: options.conversationTools === true,
          register: (entry) => services.set(entry.id, entry),
          unregister: (id) => {
            services.delete(id);
            open.delete(id);
            lineages.delete(id);
          },
          onStraggler: (settled) => {
            stragglers.add(settled);
            void settled.finally(() => stragglers.delete(settled));
          }
        },
        {
          id: input.id,
          parentId: input.parent?.id ?? null,
          policy,
          // A child asks the person its parent asks (a served session's MCP client, say).
          approve: approveFor,
          persist: input.persist,
          readOnlyStrict,
          plan: input.parent ? false : input.options.plan ?? hostPlan,
          restore: input.restore,
          conversation: input.options.conversation,
          openChild: async (parent, childOptions) => start({
            id: childOptions.id ?? newSessionId(),
            parent,
            options: childOptions,
            persist: parent.persistent
          })
        }
      );
      open.set(input.id, session);
      lineages.set(input.id, {
        lineageId: parentLineage?.lineageId ?? input.parent?.id ?? input.id,
        depth: input.parent ? (parentLineage?.depth ?? 0) + 1 : 0,
        persistent: parentLineage?.persistent ?? input.parent?.persistent ?? input.persist
      });
      if (approveFor) sessionApprovers.set(session, approveFor);
      return session;
    };
    const openNew = (sessionOptions = {}) => {
      const id = sessionOptions.id === void 0 ? newSessionId() : checkSessionId(sessionOptions.id);
      const persist = sessionOptions.persist !== false;
      if (persist && readSessionSnapshot(sessionDir(stateDir, id)) !== void 0) {
        throw configError2("sessionId", `a session ${id} exists already; resume it instead`);
      }
      return start({ id, parent: void 0, options: sessionOptions, persist });
    };
    const resume = (id, sessionOptions = {}) => {
      checkSessionId(id);
      let stored;
      try {
        stored = readSessionSnapshot(sessionDir(stateDir, id));
      } catch (error) {
        throw new ToolhostError17({
          code: "SESSION_NOT_FOUND",
          message: `session ${id} cannot be resumed: its snapshot is unreadable`,
          cause: error
        });
      }
      if (stored === void 0) {
        throw new ToolhostError17({
          code: "SESSION_NOT_FOUND",
          message: `no session ${id} exists in this project`,
          details: { sessionId: id }
        });
      }
      const raw = stored;
      const policy = isObject(raw.policy) ? {
        ...raw.policy.sandbox === void 0 ? {} : { sandbox: raw.policy.sandbox },
        ...raw.policy.approval === void 0 ? {} : { approval: raw.policy.approval },
        ...raw.policy.surface === void 0 ? {} : { surface: raw.policy.surface }
      } : {};
      const snapshot = {
        ...checkRestoreSnapshot(stored, root),
        ...isObject(raw.plan) ? { plan: { active: raw.plan.active === true } } : {}
      };
      return start({
        id,
        parent: void 0,
        options: { ...policy, ...sessionOptions },
        restore: snapshot,
        persist: true
      });
    };
    let defaultSession;
    const getDefault = () => {
      if (defaultSession && !defaultSession.closed) return defaultSession;
      const id = restored?.sessionId ?? newSessionId();
      const restoreSnapshot = restored ? {
        format: "toolhost-session-v1",
        id,
        parentId: null,
        root,
        takenAt: "",
        policy: ceiling,
        surfaceFingerprint: "",
        observations: restored.observations,
        jobs: restored.jobs,
        results: [],
        // Checked by the session (parseSessionStateSnapshot) like any snapshot on disk.
        ...{
          todos: restored.todos,
          goal: restored.goal,
          deliverables: restored.deliverables
        }
      } : void 0;
      try {
        defaultSession = start({
          id,
          parent: void 0,
          options: {},
          restore: restoreSnapshot,
          persist: true
        });
      } catch (error) {
        if (ToolhostError17.isInstance(error) && error.code === "CONFIG_INVALID") throw error;
        throw configError2("restore", "the snapshot holds invalid file observations", error);
      }
      return defaultSession;
    };
    if (restored) {
      const session = getDefault();
      const kept = new Set(session.snapshot().results.map((entry) => entry.resultRef));
      audit.emit("host-restored", {
        sessionId: session.id,
        takenAt: options.restore.takenAt,
        observations: restored.observations.entries.length,
        results: restored.results.length,
        missingResults: restored.results.filter((entry) => !kept.has(entry.resultRef)).map((entry) => entry.resultRef),
        surfaceChanged: options.restore.surfaceFingerprint !== hostSurface.fingerprint
      });
    }
    const closedHostResult = (call) => {
      const error = new ToolhostError17({ code: "ABORTED", message: "the host is closed; nothing was run" });
      const text = error.toModelText();
      return {
        id: typeof call.id === "string" && call.id !== "" ? call.id : "call_closed",
        name: typeof call.name === "string" ? call.name : "",
        toolName: null,
        status: "error",
        output: text,
        content: [{ type: "text", text }],
        error: error.toJSON(),
        resultRef: null,
        truncated: false,
        durationMs: 0
      };
    };
    const defaultOrClosed = () => closing && (!defaultSession || defaultSession.closed) ? defaultSession : getDefault();
    return {
      root,
      sandbox,
      approval,
      surface,
      platform,
      stateDir,
      config: settings.config,
      configReport: settings.configReport,
      registry,
      pathPolicy,
      surfaceNames: () => hostSurface.names,
      modelTools: () => hostSurface.modelTools,
      surfaceFingerprint: () => hostSurface.fingerprint,
      providerTools: (dialect, compileOptions) => hostSurface.providerTools(dialect, compileOptions),
      openSession: async (sessionOptions) => {
        const session = openNew(sessionOptions);
        await sessionStarted(session);
        return session;
      },
      resumeSession: async (id, sessionOptions) => {
        const session = resume(id, sessionOptions);
        await sessionStarted(session);
        return session;
      },
      sessions: () => [...open.values()],
      defaultSession: getDefault,
      dispatch: async (call, dispatchOptions) => {
        const session = defaultOrClosed();
        return session ? session.dispatch(call, dispatchOptions) : closedHostResult(call);
      },
      dispatchBatch: async (calls, dispatchOptions) => {
        const session = defaultOrClosed();
        return session ? session.dispatchBatch(calls, dispatchOptions) : { results: calls.map(closedHostResult) };
      },
      drainNotes: () => getDefault().drainNotes(),
      snapshot: () => hostSnapshotOf(getDefault().snapshot()),
      close() {
        closing ??= (async () => {
          hostController.abort(new ToolhostError17({ code: "ABORTED", message: "the host is closing" }));
          const failures = [];
          const sessions = [...open.values()];
          const settled = await Promise.allSettled(sessions.map((session) => session.close()));
          for (const outcome of settled) if (outcome.status === "rejected") failures.push(outcome.reason);
          await subagents?.close().catch((error) => failures.push(error));
          await proxy.close().catch((error) => failures.push(error));
          audit.emit("host-closed", { ...failures.length > 0 ? { failures: failures.map(String) } : {} });
          await audit.close();
        })();
        return closing;
      }
    };
  } catch (error) {
    for (const dispose of disposers.reverse()) {
      try {
        await dispose();
      } catch {
      }
    }
    throw error;
  }
}
function checkExtensions(extensions) {
  if (extensions === void 0) return [];
  if (!Array.isArray(extensions)) throw configError2("extensions", "expected an array of extensions");
  extensions.forEach((extension, index) => {
    if (typeof extension !== "object" || extension === null || typeof extension.name !== "string" || extension.name.trim() === "") {
      throw configError2(`extensions[${index}]`, "expected an object with a non-empty name");
    }
    for (const key of ["beforeCall", "afterCall"]) {
      if (extension[key] !== void 0 && typeof extension[key] !== "function") {
        throw configError2(`extensions[${index}].${key}`, "expected a function");
      }
    }
  });
  return Object.freeze([...extensions]);
}
function configError2(field, problem, cause) {
  return new ToolhostError17({
    code: "CONFIG_INVALID",
    message: `options: ${field}: ${problem}`,
    details: { source: "options", field },
    ...cause === void 0 ? {} : { cause }
  });
}
function openAudit(options, settings) {
  const auditSetting = options.auditFile ?? settings.config.audit;
  const auditFile = auditSetting === true ? join8(settings.stateDir, "audit.jsonl") : typeof auditSetting === "string" ? resolve4(settings.root, auditSetting) : void 0;
  try {
    if (auditFile) mkdirSync5(dirname2(auditFile), { recursive: true, mode: 448 });
    return createAuditLog({ onAudit: options.onAudit, file: auditFile });
  } catch (error) {
    throw configError2("auditFile", "the audit log cannot be created", error);
  }
}
function sessionProxyTool(proxy, frontendOf) {
  const definition = proxy.tool;
  return defineTool2({
    ...definition,
    execute: (args, context) => frontendOf(context).tool.execute(args, context)
  });
}
function reapCrashedSessionJobs(stateDir, sandbox) {
  let names;
  try {
    names = readdirSync2(join8(stateDir, "sessions"));
  } catch {
    return;
  }
  for (const jobsDir of names.flatMap(
    (name) => ["jobs", "plan-jobs"].map((kind) => join8(stateDir, "sessions", name, kind))
  )) {
    let live;
    try {
      live = readdirSync2(join8(jobsDir, "live"));
    } catch {
      continue;
    }
    if (live.length === 0) continue;
    try {
      const manager = createJobManager2({
        sandbox: { ...sandbox, mode: "read_only" },
        stateDir: jobsDir,
        retainLogs: true
      });
      void manager.close();
    } catch {
    }
  }
}

// src/telemetry.ts
import { errorMessage as errorMessage6 } from "@toolhost/contracts";
var CALL_EVENTS = /* @__PURE__ */ new Set([
  "call-validated",
  "permission-decided",
  "approval-requested",
  "approval-resolved",
  "hook-decided",
  "call-started",
  "result-stored"
]);
var EVENT_FIELDS = [
  "ok",
  "code",
  "validationId",
  "schemaFingerprint",
  "schemaValidated",
  "decision",
  "source",
  "rule",
  "toolSource",
  "approved",
  "by",
  "event",
  "mode",
  "timeoutMs",
  "truncated",
  "originalBytes",
  "keptBytes"
];
async function createToolTelemetry(options = {}) {
  const env = options.env ?? process.env;
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return void 0;
  if ((env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() === "true") return void 0;
  if ((env.OTEL_TRACES_EXPORTER ?? "").trim().toLowerCase() === "none") return void 0;
  const warn = options.warn ?? ((message) => process.stderr.write(`toolhost: ${message}
`));
  const requested = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || "http/protobuf").trim().toLowerCase();
  let protocol = "http/protobuf";
  if (requested === "http/json") protocol = "http/json";
  else if (requested !== "http/protobuf") {
    warn(
      `OTEL_EXPORTER_OTLP_PROTOCOL=${requested} is not supported for traces; sending http/protobuf instead`
    );
  }
  const [api, core, resources, traceBase, exporterModule] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/core"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace-base"),
    protocol === "http/json" ? import("@opentelemetry/exporter-trace-otlp-http") : import("@opentelemetry/exporter-trace-otlp-proto")
  ]);
  const exporter = new exporterModule.OTLPTraceExporter();
  const serviceName = env.OTEL_SERVICE_NAME || options.serviceName || "toolhost";
  const provider = new traceBase.BasicTracerProvider({
    resource: resources.resourceFromAttributes({
      "service.name": serviceName,
      ...options.serviceVersion ? { "service.version": options.serviceVersion } : {}
    }),
    spanProcessors: [new traceBase.BatchSpanProcessor(exporter)]
  });
  const tracer = provider.getTracer("toolhost", options.serviceVersion);
  const propagator = new core.W3CTraceContextPropagator();
  const open = /* @__PURE__ */ new Map();
  const keyOf = (event) => `${String(event.sessionId ?? "")}\0${String(event.callId)}`;
  let closed = false;
  const onAudit = (event) => {
    if (closed || event.callId === void 0) return;
    const key = keyOf(event);
    const at = Date.parse(event.at);
    if (event.type === "call-received") {
      const traceparent = typeof event.traceparent === "string" ? event.traceparent : void 0;
      const parent = traceparent ? propagator.extract(api.ROOT_CONTEXT, { traceparent }, api.defaultTextMapGetter) : api.ROOT_CONTEXT;
      const span2 = tracer.startSpan(
        "execute_tool",
        {
          kind: api.SpanKind.INTERNAL,
          startTime: at,
          attributes: {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.call.id": event.callId,
            ...event.sessionId ? { "toolhost.session.id": String(event.sessionId) } : {},
            ...event.batchId ? { "toolhost.batch.id": String(event.batchId) } : {}
          }
        },
        parent
      );
      open.set(key, span2);
      return;
    }
    const span = open.get(key);
    if (!span) return;
    if (event.type === "call-resolved") {
      if (event.ok === true && typeof event.toolName === "string") {
        span.updateName(`execute_tool ${event.toolName}`);
        span.setAttribute("gen_ai.tool.name", event.toolName);
        if (typeof event.capabilityId === "string")
          span.setAttribute("toolhost.capability.id", event.capabilityId);
        if (typeof event.via === "string") span.setAttribute("toolhost.resolved.via", event.via);
      } else {
        span.addEvent(
          "resolution",
          { ok: false, ...typeof event.code === "string" ? { code: event.code } : {} },
          at
        );
      }
      return;
    }
    if (event.type === "permission-decided" && typeof event.toolSource === "string") {
      span.setAttribute("toolhost.tool.source", event.toolSource);
    }
    if (CALL_EVENTS.has(event.type)) {
      const attributes = {};
      for (const field of EVENT_FIELDS) {
        const value = event[field];
        if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
          attributes[field] = value;
        }
      }
      span.addEvent(event.type, attributes, at);
      return;
    }
    if (event.type === "call-finished") {
      open.delete(key);
      if (event.status === "error") {
        const code = typeof event.code === "string" ? event.code : "EXECUTION_ERROR";
        span.setAttribute("error.type", code);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: code });
      } else {
        span.setStatus({ code: api.SpanStatusCode.OK });
      }
      if (typeof event.truncated === "boolean")
        span.setAttribute("toolhost.result.truncated", event.truncated);
      span.end(at);
    }
  };
  let shutdown;
  return {
    onAudit,
    protocol,
    shutdown() {
      shutdown ??= (async () => {
        closed = true;
        for (const span of open.values()) {
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: "the host closed" });
          span.end();
        }
        open.clear();
        try {
          await provider.shutdown();
        } catch (error) {
          warn(`the traces could not be sent (${errorMessage6(error)})`);
        }
      })();
      return shutdown;
    }
  };
}

// src/index.ts
import {
  DEFAULT_MCP_LOGIN_TIMEOUT_MS,
  loginMcpServer,
  logoutMcpServer,
  MCP_OAUTH_DIR_NAME as MCP_OAUTH_DIR_NAME2,
  mcpServerSignIn,
  mcpSignInTarget,
  parseMcpServers as parseMcpServers2
} from "@toolhost/capability-proxy";
export {
  ABORT_GRACE_MS,
  CONFIG_FILE_NAME,
  CONVERSATION_TOOLS,
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  DEFAULT_MAX_PLAN_ENTRIES,
  DEFAULT_MCP_LOGIN_TIMEOUT_MS,
  DEFAULT_SESSIONS_MAX_BYTES,
  DEFAULT_SESSION_MAX_AGE_MS,
  EMPTY_HOST_CONFIG,
  EXIT_PLAN_MODE,
  EXTENSION_TIMEOUT_MS,
  HOOK_EVENTS,
  LEAN_SURFACE_TOOLS,
  MAX_CALL_REPLACEMENTS,
  MAX_CONFIG_BYTES,
  MAX_HOOK_REASON_BYTES,
  MAX_HOOK_TIMEOUT_SECONDS,
  MAX_MODEL_RESULT_BYTES,
  MAX_PARALLEL_CALLS,
  MAX_PLAN_ENTRIES_LIMIT,
  MAX_SUBAGENT_ANSWER_BYTES,
  MAX_SUBAGENT_DEPTH,
  MAX_SUBAGENT_STATE_BYTES,
  MCP_OAUTH_DIR_NAME2 as MCP_OAUTH_DIR_NAME,
  RESULT_BUDGETS,
  SESSION_ID_PATTERN,
  SUBAGENT_REFERENCE_PATTERN,
  TRUST_STORE_FILE_NAME,
  USER_CONFIG_FILE_NAME,
  USE_CAPABILITY,
  closeNames,
  compileHookMatcher,
  configDigest,
  createAuditLog,
  createHost,
  createPermissionRules,
  createStormBreaker,
  createToolTelemetry,
  decidePermission,
  isProjectConfigTrusted,
  loadHostConfig,
  loginMcpServer,
  logoutMcpServer,
  mcpServerSignIn,
  mcpSignInTarget,
  narrowPolicy,
  parseConfigText,
  parseHostConfig,
  parseMcpServers2 as parseMcpServers,
  parsePermissionRule,
  parseSandboxConfig,
  parseShellEnvironment,
  planDenial,
  projectTrustEntry,
  readConfigFile,
  resolveHostConfig,
  resolveShellSandbox,
  resolveUserConfigDir,
  runTool,
  sandboxDenial,
  selectSurface,
  sessionPrefixRule,
  shapeResultText,
  shellToolName,
  stormCategory,
  writeProjectTrust
};
//# sourceMappingURL=index.js.map