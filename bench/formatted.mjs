// What a bench writes to docs/: the page as prettier would write it, so that `npm run lint` stays
// clean after a run (the text as it is when prettier cannot be loaded).
export const formatted = async (path, text) => {
  try {
    const prettier = await import("prettier");
    const config = (await prettier.resolveConfig(path)) ?? {};
    return await prettier.format(text, { ...config, filepath: path });
  } catch {
    return text;
  }
};
