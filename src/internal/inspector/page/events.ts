/**
 * The inspector page's script, part 3 of 7: an answer's event stream, read as it arrives
 * (`readEvents`), and the value a streamed notification carries (`streamedValue`). Apart from the
 * wire (wire.ts), which reads the page's `<meta>` when it loads: these two need no page.
 *
 * @module
 */

import { isObject, own, type Json } from "./dom";

// An event stream's messages as they arrive: each given to onMessage, which answers whether it
// was a streamed value; the last message that was not is the answer. A line ends with CRLF, LF
// or CR (the event stream's three line ends), a CRLF split between two reads included.
export const readEvents = async (
  stream: ReadableStream<Uint8Array>,
  onMessage: (text: string) => boolean,
): Promise<string> => {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let afterCR = false;
  let data: string[] = [];
  let answer = "";
  const dispatch = () => {
    if (data.length === 0) return;
    const text = data.join("\n");
    data = [];
    if (!onMessage(text)) answer = text;
  };
  for (;;) {
    const { value, done } = await reader.read();
    let text = decoder.decode(value, { stream: !done });
    // The LF of a CRLF whose CR ended the last read: that line has ended already.
    if (afterCR && text !== "") {
      afterCR = false;
      if (text.startsWith("\n")) text = text.slice(1);
    }
    if (text.endsWith("\r")) afterCR = true;
    const lines = (buffer + text).split(/\r\n|\r|\n/);
    buffer = done ? "" : (lines.pop() as string);
    for (const line of lines) {
      if (line === "") dispatch();
      else if (line === "data" || line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    }
    if (done) break;
  }
  dispatch();
  return answer;
};

// The value a streamed notification carries, or undefined for a message that is not one.
export const streamedValue = (text: string): Json => {
  let message: Json;
  try {
    message = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(message) || typeof message.method !== "string" || own(message, "id")) return undefined;
  if (message.method === "$/progress" && own(message.params, "value")) return message.params.value;
  return own(message, "params") ? message.params : message.method;
};
