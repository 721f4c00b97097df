"use client";

import { type KeyboardEvent, useEffect, useId, useMemo, useState } from "react";
import { inputClass } from "@/components/form/field";
import { kindTitles, type TopologyNode } from "@/lib/topology";

/** More matches than this are not listed: typing more of the name narrows them. */
const maxListed = 50;

/**
 * A search box over the objects a focus can start from (ARIA 1.2 combobox with a listbox):
 * typing filters by name, ↑/↓ move through the matches, Enter focuses the graph on the one
 * marked, Escape closes the list. Chosen objects are not kept in the box: the graph's overview
 * line says what is focused.
 */
export function FocusPicker({
  choices,
  onChoose,
}: {
  choices: readonly TopologyNode[];
  onChoose: (id: string) => void;
}) {
  const id = useId();
  const listId = `${id}-list`;
  const [query, setQuery] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);

  const matches = useMemo(() => {
    const q = query.trim().toLowerCase();
    return q === "" ? choices : choices.filter((c) => c.label.toLowerCase().includes(q));
  }, [choices, query]);
  const listed = matches.slice(0, maxListed);
  const activeId = open && listed[active] ? `${id}-option-${active}` : undefined;

  useEffect(() => {
    if (activeId) document.getElementById(activeId)?.scrollIntoView({ block: "nearest" });
  }, [activeId]);

  const choose = (choice: TopologyNode | undefined) => {
    if (!choice) return;
    onChoose(choice.id);
    setQuery("");
    setOpen(false);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const move = (to: number) => {
      event.preventDefault();
      setOpen(true);
      setActive(Math.max(0, Math.min(to, listed.length - 1)));
    };
    if (event.key === "ArrowDown") move(open ? active + 1 : 0);
    else if (event.key === "ArrowUp") move(active - 1);
    else if (event.key === "Enter" && open) {
      event.preventDefault();
      choose(listed[active]);
    } else if (event.key === "Escape") {
      if (open) setOpen(false);
      else setQuery("");
    }
  };

  return (
    <div className="relative flex items-center gap-2">
      <label htmlFor={id} className="shrink-0 text-sm font-medium text-fg">
        Focus on
      </label>
      <input
        id={id}
        type="text"
        role="combobox"
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={activeId}
        autoComplete="off"
        spellCheck={false}
        placeholder="Listener, route configuration, cluster…"
        className={`${inputClass} w-80`}
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setActive(0);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      <div
        id={listId}
        role="listbox"
        aria-label="Objects to focus on"
        hidden={!open}
        className="absolute top-full right-0 z-20 mt-1 max-h-80 w-80 overflow-y-auto rounded-md border bg-surface py-1 shadow-md"
      >
        {listed.length === 0 ? (
          <p className="px-3 py-2 text-sm text-fg-muted">
            No listener, route configuration or cluster matches “{query.trim()}”.
          </p>
        ) : (
          listed.map((choice, i) => (
            // biome-ignore lint/a11y/useKeyWithClickEvents: the combobox input owns the keyboard (↑/↓/Enter); options never take focus (ARIA 1.2 combobox pattern)
            <div
              key={choice.id}
              id={`${id}-option-${i}`}
              role="option"
              aria-selected={i === active}
              tabIndex={-1}
              // Keep the input focused: a mousedown on an option would otherwise blur it and
              // close the list before the click lands.
              onMouseDown={(e) => e.preventDefault()}
              onMouseMove={() => setActive(i)}
              onClick={() => choose(choice)}
              className={`flex cursor-pointer items-baseline justify-between gap-3 px-3 py-1.5 text-sm ${
                i === active ? "bg-surface-hover" : ""
              }`}
            >
              <span className="truncate font-mono text-[12.5px] text-fg">{choice.label}</span>
              <span className="shrink-0 text-xs text-fg-subtle">{kindTitles[choice.kind]}</span>
            </div>
          ))
        )}
        {matches.length > listed.length && (
          <p className="border-t px-3 py-1.5 text-xs text-fg-subtle">
            {listed.length} of {matches.length.toLocaleString("en")} shown: type more of the name
          </p>
        )}
      </div>
    </div>
  );
}
