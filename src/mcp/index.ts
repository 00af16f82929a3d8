/**
 * The MCP server's public surface (DESIGN.md "Interfaces"; issue 10): a front end as thin as a command, over
 * the search API and the level-3 reader. Loaded lazily by `recall mcp` (src/mcp/command.ts), so `recall --help`
 * and plain searches never load the MCP SDK.
 */
export { serveStdio, serveHttp, createRecallServer, exitGraceMs, type ServeOptions } from "./server.ts";
export { defaultHttpPort, loopbackAddress, endpointPath, isLoopbackHost, isLoopbackOrigin } from "./http.ts";
export { ensureToken, tokenPath, isAuthorized, tokenFileName } from "./token.ts";
export {
  parseConfigTarget,
  renderRegistration,
  stdioRegistration,
  configTargets,
  forwardedVariables,
  type ConfigTarget,
  type Registration,
} from "./config-snippet.ts";
export { createBackend, type Backend, type BackendOptions } from "../service/backend.ts";
export { descriptions, inputShapes, outputShapes, toolNames, type ToolName, type ResultFormat } from "./schemas.ts";
export { defaultBudgetChars, parseBudget } from "./turns-text.ts";
export { describeToolError } from "./tools.ts";
