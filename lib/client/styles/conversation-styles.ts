/**
 * CSS of the conversation-side pieces: the composer's quick switcher and its menu, the ⚙ panel, the turn head and
 * the memory_save row. styles.ts installs it with the rest; every class is `ap-` prefixed and every colour a
 * `--dsw-alias-*` token. Of the host's elements it styles only the chips of a sent message that MentionChips.tsx
 * marked as profile mentions.
 */

/** The stylesheet text. */
export const CONVERSATION_CSS = `
.ap-switcher { display: inline-flex; align-items: center; gap: 2px; max-width: 260px; min-width: 0; }
.ap-switcher-trigger, .ap-switcher-gear { display: inline-flex; align-items: center; gap: 6px; height: 28px; padding: 0 8px;
  border: 0; border-radius: 8px; background: transparent; color: var(--dsw-alias-label-secondary); font: inherit;
  font-size: 12px; cursor: pointer; min-width: 0; }
.ap-switcher-trigger:hover:not(:disabled), .ap-switcher-gear:hover:not(:disabled),
.ap-switcher-trigger[aria-expanded="true"], .ap-switcher-gear[aria-expanded="true"] {
  background: var(--dsw-alias-interactive-bg-hover); color: var(--dsw-alias-label-primary); }
.ap-switcher-trigger:disabled, .ap-switcher-trigger[aria-disabled="true"] { cursor: default; }
.ap-switcher-trigger:focus-visible, .ap-switcher-gear:focus-visible, .ap-menu-item:focus-visible {
  outline: 2px solid var(--dsw-alias-border-l4); outline-offset: -2px; }
.ap-switcher-gear { padding: 0 6px; }
.ap-switcher-name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 140px; }
.ap-switcher-state { font-size: 11px; color: var(--dsw-alias-label-tertiary); white-space: nowrap; }
.ap-switcher-state-pinned { color: var(--dsw-alias-brand-primary); }
.ap-switcher-incognito { align-self: center; margin: 0 2px; }
.ap-switcher-caret { font-size: 9px; color: var(--dsw-alias-label-tertiary); }
.ap-switcher-error { color: var(--dsw-alias-state-error-primary); }
/* The layer never scrolls as a whole: its head (title and Close) stays put and only the body scrolls, so a layer
   taller than the room it has still shows what it is and how to close it. Its height cap (placeNear: the room on its
   side) counts its padding and border too: the layer is the .ap-root itself, which the .ap-root * rule does not reach. */
.ap-popover { position: fixed; z-index: 1000; display: flex; flex-direction: column; max-height: min(70vh, 560px);
  box-sizing: border-box;
  overflow: hidden; padding: 6px; border-radius: 12px; background: var(--dsw-alias-bg-overlay);
  border: 1px solid var(--dsw-alias-border-l2); color: var(--dsw-alias-label-primary); font-size: 13px; }
.ap-popover-head { flex: none; }
.ap-popover-body { flex: 1 1 auto; min-height: 0; overflow: auto; display: flex; flex-direction: column; gap: inherit; }
.ap-menu { min-width: 220px; max-width: 320px; }
.ap-menu-title { padding: 4px 8px; color: var(--dsw-alias-label-tertiary); font-size: 11px; }
.ap-menu-item { display: flex; align-items: center; gap: 8px; width: 100%; padding: 6px 8px; border: 0; border-radius: 8px;
  background: transparent; color: inherit; font: inherit; text-align: left; cursor: pointer; }
.ap-menu-item:hover { background: var(--dsw-alias-interactive-bg-hover); }
.ap-menu-item[aria-checked="true"] { background: var(--dsw-alias-interactive-bg-active); }
.ap-menu-text { display: flex; flex-direction: column; min-width: 0; flex: 1; }
.ap-menu-name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.ap-menu-hint { color: var(--dsw-alias-label-tertiary); font-size: 11px; }
.ap-cast-hint { display: block; padding: 4px 8px; }
[data-ap-user-row] [data-ap-mention] > svg { display: none; }
[data-ap-user-row] [data-ap-mention] { margin: 0; gap: 0; color: var(--dsw-alias-state-business-primary); }
[data-ap-user-row] [data-ap-mention]::before { content: '@'; }
[data-ap-user-row] [data-ap-mentions] > div { display: inline; }
.ap-menu-row { display: flex; align-items: stretch; gap: 2px; }
.ap-menu-row > .ap-menu-item:first-child { flex: 1; min-width: 0; }
.ap-cast-toggle { flex: none; width: 32px; justify-content: center; color: var(--dsw-alias-label-tertiary); }
.ap-cast-toggle[aria-checked="true"] { color: var(--dsw-alias-brand-primary); font-weight: 600; }
.ap-menu-check { width: 14px; flex: none; color: var(--dsw-alias-brand-primary); }
.ap-menu-sep { height: 1px; margin: 4px 0; background: var(--dsw-alias-border-l1); border: 0; }
.ap-toast { position: fixed; z-index: 1001; max-width: 360px; box-sizing: border-box; padding: 6px 10px; border-radius: 8px; font-size: 12px;
  background: var(--dsw-alias-bg-overlay); color: var(--dsw-alias-label-primary);
  border: 1px solid var(--dsw-alias-state-success-secondary); }
.ap-toast-error { border-color: var(--dsw-alias-state-error-secondary); color: var(--dsw-alias-state-error-primary); }
.ap-panel-pop { width: 380px; padding: 12px; gap: 8px; }
.ap-panel-head { display: flex; align-items: center; gap: 8px; margin-bottom: 4px; }
.ap-panel-head h2 { font-size: 14px; margin: 0; flex: 1; }
.ap-panel-using { display: flex; align-items: center; gap: 8px; color: var(--dsw-alias-label-secondary); font-size: 12px; margin-bottom: 8px; }
.ap-panel-refresh { display: flex; gap: 8px; align-items: flex-start; padding-top: 8px; }
.ap-panel-refresh .ap-btn { flex: none; }
/* Save stays in sight however long the panel grows: the footer sticks to the bottom of the scrolling popover. */
.ap-panel-actions { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; padding: 8px 0 2px;
  border-top: 1px solid var(--dsw-alias-border-l1); position: sticky; bottom: 0; z-index: 1;
  background: var(--dsw-alias-bg-overlay); }
.ap-turn-head { display: flex; align-items: center; gap: 10px; margin: 4px 0 6px; min-height: 44px; }
.ap-turn-head-name { font-size: 13px; font-weight: 600; color: var(--dsw-alias-label-primary);
  overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.ap-turn-head-fallback { font-size: 12px; color: var(--dsw-alias-state-warn-label); }
.ap-turn-memories { font-size: 12px; color: var(--dsw-alias-label-secondary); background: none; border: 0; padding: 2px 4px;
  cursor: pointer; text-decoration: underline dotted; }
.ap-turn-memories-pop { width: 360px; padding: 12px; gap: 8px; }
.ap-turn-memories-pop h2 { font-size: 14px; margin: 0; flex: 1; }
.ap-turn-memory-list { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 6px; }
.ap-turn-memory { display: flex; align-items: baseline; gap: 8px; font-size: 13px; }
.ap-turn-memory-text { flex: 1; min-width: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.ap-turn-head-blank { width: 44px; height: 44px; border-radius: 50%; background: var(--dsw-alias-bg-layer-2); }
.ap-updates { display: flex; flex-direction: column; gap: 4px; box-sizing: border-box; width: 100%;
  max-width: var(--dsh-composer-card-max-width, 100%); margin: 0 auto 6px; }
.ap-update { display: flex; align-items: flex-start; gap: 8px; padding: 6px 10px; border-radius: 10px; font-size: 13px;
  background: var(--dsw-alias-bg-layer-2); border: 1px solid var(--dsw-alias-border-l1); }
.ap-update-body { flex: 1; min-width: 0; display: flex; flex-wrap: wrap; align-items: baseline; gap: 6px; overflow-wrap: anywhere; }
.ap-facts { display: contents; list-style: none; }
.ap-mention-warnings { display: flex; flex-direction: column; gap: 2px; box-sizing: border-box; width: 100%;
  max-width: var(--dsh-composer-card-max-width, 100%); margin: 0 auto 6px; padding: 6px 10px; border-radius: 10px;
  font-size: 13px; background: var(--dsw-alias-bg-layer-2); border: 1px solid var(--dsw-alias-border-l1);
  color: var(--dsw-alias-state-warning-primary, var(--dsw-alias-label-primary)); overflow-wrap: anywhere; }
.ap-fact { display: inline-flex; align-items: baseline; gap: 4px; }
.ap-fact-undone { color: var(--dsw-alias-label-secondary); }
.ap-memory-save-undo { display: inline-flex; flex-wrap: wrap; gap: 6px; margin-left: 6px; }
.ap-memory-save { display: flex; align-items: baseline; gap: 6px; padding: 4px 0; font-size: 13px;
  color: var(--dsw-alias-label-secondary); }
.ap-memory-save-text { color: var(--dsw-alias-label-primary); white-space: pre-wrap; overflow-wrap: anywhere; }
.ap-memory-save-error { color: var(--dsw-alias-state-error-primary); }
`
