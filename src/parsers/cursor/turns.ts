/**
 * Cursor messages → turns (DESIGN.md "Turn"): a user message plus every assistant message until the
 * next user message. Assistant messages before the first user message (a composer opened on an
 * agent's own follow-up) form a turn with an empty prompt so their prose is not lost.
 */
import { filesTouched } from "../tool-calls.ts";
import type { Turn } from "../types.ts";
import type { ChatMessage } from "./records.ts";

/**
 * Group messages into turns numbered from 1. Response = assistant texts joined by blank lines;
 * timestamp = the user message's time, else the first known time in the turn, else 0.
 */
export function buildTurns(sessionId: string, messages: readonly ChatMessage[], isSubagent: boolean): Turn[] {
  const turns: Turn[] = [];
  let current: { turn: Turn; responses: string[] } | undefined;
  const finish = () => {
    if (!current) return;
    current.turn.response = current.responses.join("\n\n");
    current.turn.files = filesTouched(current.turn.toolCalls);
    turns.push(current.turn);
    current = undefined;
  };
  for (const message of messages) {
    if (message.role === "user" || !current) {
      finish();
      const prompt = message.role === "user" ? message.text : "";
      current = {
        turn: {
          sessionId,
          number: turns.length + 1,
          timestamp: message.timestamp,
          prompt,
          response: "",
          toolCalls: [],
          files: [],
          isSubagent,
        },
        responses: [],
      };
      if (message.role === "user") continue;
    }
    if (current.turn.timestamp === 0) current.turn.timestamp = message.timestamp;
    if (message.text.trim()) current.responses.push(message.text.trim());
    current.turn.toolCalls.push(...message.toolCalls);
  }
  finish();
  return turns;
}
