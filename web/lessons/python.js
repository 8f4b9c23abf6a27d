// The lessons' Python lives in web/lessons/*.py, bundled as text (web/build.mjs: esbuild's text loader). A file is
// a note, then cells: each starts at a line "# %% name" (the cell marker editors know) and ends before the next.
// A cell may be a template: $name stands for a value the page fills in (fill()).

// text → {name: the cell's code, without its trailing blank lines}
export function cells(text) {
  const found = {};
  const parts = text.split(/^# %% (\w+)\n/m); // [note, name, code, name, code, …]
  for (let i = 1; i < parts.length; i += 2) found[parts[i]] = parts[i + 1].replace(/\s+$/, '');
  return found;
}

// template with every $name replaced by values[name]; a name without a value is a mistake in the lesson's file.
export function fill(template, values) {
  return template.replace(/\$(\w+)/g, (_, name) => {
    if (!(name in values)) throw new Error('lesson template: no value for $' + name);
    return String(values[name]);
  });
}
