/**
 * The browser half's CSS and its installation: one <style> tag for the plugin's lifetime. Every class is
 * prefixed `ap-` and every colour is a `--dsw-alias-*` token, so both host themes apply and a renamed token only
 * degrades the look instead of breaking the page. It never styles host elements.
 */
import { CONVERSATION_CSS } from './conversation-styles.ts'

/** Shared pieces: avatar, buttons, fields, notices, the error boundary. */
const BASE_CSS = `
.ap-root { color: var(--dsw-alias-label-primary); font-size: 13px; line-height: 1.5; }
.ap-root *, .ap-root *::before, .ap-root *::after { box-sizing: border-box; }
.ap-avatar { display: inline-flex; align-items: center; justify-content: center; flex: none; border-radius: 50%;
  overflow: hidden; background: var(--dsw-alias-bg-layer-2); border: 1px solid var(--dsw-alias-border-l1); line-height: 1; }
.ap-avatar-img { width: 100%; height: 100%; object-fit: cover; display: block; }
.ap-btn { display: inline-flex; align-items: center; gap: 4px; padding: 5px 12px; border-radius: 8px; cursor: pointer;
  font: inherit; color: var(--dsw-alias-label-primary); background: var(--dsw-alias-bg-layer-1);
  border: 1px solid var(--dsw-alias-border-l2); white-space: nowrap; text-decoration: none; }
.ap-btn:hover:not(:disabled) { background: var(--dsw-alias-interactive-bg-hover); }
.ap-btn:disabled { cursor: default; opacity: 0.5; }
.ap-btn:focus-visible, .ap-input:focus-visible, .ap-textarea:focus-visible { outline: 2px solid var(--dsw-alias-border-l4); outline-offset: 1px; }
.ap-btn-primary { background: var(--dsw-alias-button-primary-fill); color: var(--dsw-alias-label-primary-foreground); border-color: transparent; }
.ap-btn-primary:hover:not(:disabled) { background: var(--dsw-alias-button-primary-hover); }
.ap-btn-danger { color: var(--dsw-alias-state-error-primary); }
.ap-btn-danger:hover:not(:disabled) { background: var(--dsw-alias-interactive-bg-hover-danger); }
.ap-btn-small { padding: 2px 8px; font-size: 12px; }
/* Acts at once (a revert in the history), unlike the draft edits around it: dashed, never filled like Save. */
.ap-btn-now { border-style: dashed; }
.ap-input, .ap-textarea, .ap-select { width: 100%; font: inherit; color: var(--dsw-alias-label-primary);
  background: var(--dsw-alias-bg-base); border: 1px solid var(--dsw-alias-border-l2); border-radius: 8px; padding: 6px 8px; }
.ap-textarea { resize: vertical; min-height: 64px; }
.ap-field { display: flex; flex-direction: column; gap: 4px; margin-bottom: 12px; }
.ap-field-label { font-weight: 600; display: flex; justify-content: space-between; gap: 8px; }
.ap-hint { color: var(--dsw-alias-label-secondary); font-size: 12px; }
.ap-io-clash { display: block; margin: 2px 0 6px; }
.ap-io-progress { display: flex; flex-direction: column; gap: 4px; margin: 8px 0; }
.ap-io-progress-track { height: 8px; border-radius: 4px; overflow: hidden; background: var(--dsw-alias-border-l1); }
.ap-io-progress-fill { height: 100%; background: var(--dsw-alias-brand-primary, currentColor); transition: width 0.3s; }
.ap-count { color: var(--dsw-alias-label-tertiary); font-weight: 400; font-size: 12px; }
.ap-count-over { color: var(--dsw-alias-state-error-primary); }
.ap-check { display: flex; align-items: flex-start; gap: 8px; margin-bottom: 12px; }
.ap-history { margin-top: 12px; }
.ap-history-list { list-style: none; margin: 6px 0; padding: 0; display: flex; flex-direction: column; gap: 6px; }
.ap-history-entry { padding: 6px 8px; border: 1px solid var(--dsw-alias-border-l1); border-radius: 8px; }
.ap-history-changes { margin: 4px 0 0; padding-left: 16px; font-size: 12px; overflow-wrap: anywhere; }
.ap-badge { display: inline-block; padding: 0 6px; border-radius: 6px; font-size: 11px; line-height: 18px;
  background: var(--dsw-alias-bg-layer-3); color: var(--dsw-alias-label-secondary); }
.ap-badge-accent { color: var(--dsw-alias-brand-primary); }
/* An item changed in the open draft, saved only with the draft. */
.ap-memory-item-draft { border-left: 3px solid var(--dsw-alias-brand-primary); }
.ap-badge-draft { color: var(--dsw-alias-brand-primary); font-weight: 600; }
.ap-notice { padding: 6px 10px; border-radius: 8px; margin-bottom: 8px; background: var(--dsw-alias-state-success-tertiary);
  color: var(--dsw-alias-label-primary); border: 1px solid var(--dsw-alias-state-success-secondary); }
.ap-error { padding: 8px 10px; border-radius: 8px; margin-bottom: 8px; color: var(--dsw-alias-state-error-primary);
  border: 1px solid var(--dsw-alias-state-error-secondary); background: var(--dsw-alias-bg-layer-1); overflow-wrap: anywhere; }
/* One line per file under an import's sentence, whether the import went through or not. */
.ap-io-details { margin: 4px 0 0; padding-left: 18px; }
.ap-error-compact { display: inline-flex; align-items: center; gap: 6px; padding: 2px 6px; margin: 0; font-size: 12px; }
.ap-error-title { display: block; }
.ap-error-stack { max-height: 160px; overflow: auto; font-size: 11px; white-space: pre-wrap; color: var(--dsw-alias-label-secondary); }
.ap-placeholder { color: var(--dsw-alias-label-secondary); padding: 12px; }
.ap-dialog-mask { position: fixed; inset: 0; z-index: 1100; display: flex; align-items: center; justify-content: center;
  background: var(--dsw-alias-bg-mask-1); }
.ap-dialog { max-width: 420px; padding: 16px; border-radius: 12px; background: var(--dsw-alias-bg-overlay);
  border: 1px solid var(--dsw-alias-border-l2); color: var(--dsw-alias-label-primary); }
.ap-dialog-actions { display: flex; justify-content: flex-end; gap: 8px; margin-top: 16px; }
`

/**
 * The settings page: its sections as tabs (underlined, like the host's own settings tabs), the profile list folded
 * behind a selector above the editor, and beside it only where the page itself is wide enough for both — a
 * container query, because the host's settings dialog, not the window, decides the page's width.
 */
const SETTINGS_CSS = `
.ap-settings { display: flex; flex-direction: column; gap: 16px; padding-bottom: 24px; container: ap-settings / inline-size; }
.ap-settings h2 { font-size: 16px; margin: 0; }
.ap-settings h3 { font-size: 14px; margin: 0 0 8px; }
.ap-tabs { display: flex; gap: 20px; border-bottom: 1px solid var(--dsw-alias-border-l2); overflow-x: auto; }
.ap-tab { position: relative; flex: none; padding: 7px 1px 9px; border: 0; background: transparent; font: inherit; white-space: nowrap;
  color: var(--dsw-alias-label-tertiary); cursor: pointer; }
.ap-tab:hover, .ap-tab[aria-selected="true"] { color: var(--dsw-alias-label-primary); }
.ap-tab[aria-selected="true"]::after { content: ""; position: absolute; left: 0; right: 0; bottom: 0; height: 2px;
  border-radius: 2px 2px 0 0; background: var(--dsw-alias-label-primary); }
.ap-tab:focus-visible, .ap-tabpanel:focus-visible, .ap-list-item:focus-visible { outline: 2px solid var(--dsw-alias-border-l4); outline-offset: -2px; border-radius: 6px; }
.ap-tabs-page .ap-tab { font-size: 14px; }
.ap-tab-mark { color: var(--dsw-alias-state-warn-label); }
.ap-tabpanel { padding-top: 12px; min-width: 0; }
.ap-tabpanel > .ap-panel.ap-preview { border: 0; padding: 0; background: transparent; }
.ap-tabpanel[data-panel="tools"] > .ap-fieldset { margin-top: 0; }
.ap-io h3 ~ h3 { margin-top: 16px; }
.ap-panel { border: 1px solid var(--dsw-alias-border-l1); border-radius: 12px; padding: 12px; background: var(--dsw-alias-bg-layer-1); min-width: 0; }
.ap-list { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 2px; max-height: 560px; overflow: auto; }
.ap-list-item { display: flex; align-items: center; gap: 8px; width: 100%; padding: 6px 8px; border-radius: 8px; border: 0;
  background: transparent; color: inherit; font: inherit; text-align: left; cursor: pointer; }
.ap-list-item:hover { background: var(--dsw-alias-interactive-bg-hover); }
.ap-list-item[aria-current="true"] { background: var(--dsw-alias-interactive-bg-active); }
.ap-list-text { display: flex; flex-direction: column; min-width: 0; }
.ap-list-name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.ap-list-meta { display: flex; gap: 4px; flex-wrap: wrap; color: var(--dsw-alias-label-tertiary); font-size: 11px; }
.ap-row { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.ap-row-between { justify-content: space-between; }
.ap-grid2 { display: grid; grid-template-columns: 1fr 120px; gap: 12px; }
.ap-avatar-picker { display: flex; gap: 12px; align-items: center; margin-bottom: 12px; }
.ap-memory-meter { height: 6px; border-radius: 3px; background: var(--dsw-alias-border-l1); overflow: hidden; margin: 4px 0; }
.ap-memory-meter-fill { height: 100%; min-width: 2px; background: var(--dsw-alias-brand-primary); }
.ap-memory-meter-over .ap-memory-meter-fill { background: var(--dsw-alias-state-warn-primary); }
.ap-memory-list { list-style: none; margin: 0 0 8px; padding: 0; display: flex; flex-direction: column; gap: 6px; }
.ap-memory-item { border: 1px solid var(--dsw-alias-border-l1); border-radius: 8px; padding: 6px 8px; background: var(--dsw-alias-bg-base); }
.ap-memory-text { white-space: pre-wrap; overflow-wrap: anywhere; }
.ap-suggestion-bulk { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin-bottom: 6px; }
.ap-suggestion-bulk .ap-check { margin-bottom: 0; }
.ap-suggestion-head { display: flex; align-items: flex-start; gap: 8px; }
.ap-suggestion-head .ap-memory-text { flex: 1 1 auto; min-width: 0; }
.ap-memory-meta { color: var(--dsw-alias-label-tertiary); font-size: 11px; display: flex; gap: 8px; flex-wrap: wrap; }
.ap-memory-filters { margin-bottom: 6px; }
.ap-memory-search { flex: 1 1 200px; width: auto; }
.ap-memory-filter { display: inline-flex; align-items: center; gap: 4px; }
.ap-memory-filter .ap-input { width: auto; }
.ap-memory-scroll { max-height: 480px; overflow-y: auto; overscroll-behavior: contain; margin-bottom: 8px; }
.ap-memory-scroll-compact { max-height: 300px; }
.ap-memory-window { position: relative; display: block; margin: 0; }
.ap-memory-row { position: absolute; top: 0; left: 0; width: 100%; }
.ap-memory-row-loading { color: var(--dsw-alias-label-tertiary); min-height: 56px; }
.ap-memory-changed { border-color: var(--dsw-alias-state-warn-primary); }
.ap-memory-removed .ap-memory-text { color: var(--dsw-alias-label-tertiary); }
.ap-badge-warn { color: var(--dsw-alias-state-warn-label); }
.ap-preview-text { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 320px; overflow: auto; margin: 0; padding: 8px;
  border-radius: 8px; background: var(--dsw-alias-bg-base); border: 1px solid var(--dsw-alias-border-l1); font-size: 12px; }
.ap-dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 4px 12px; margin: 0; }
.ap-dl dt { color: var(--dsw-alias-label-secondary); }
.ap-dl dd { margin: 0; overflow-wrap: anywhere; }
/* Stuck to the dialog's lower edge, not 24 px above it: the host's scroll area keeps a bottom padding, which the bar
   covers (and gives back below itself) so no field shows through underneath it. */
.ap-editor-actions { position: sticky; bottom: -24px; display: flex; gap: 8px; align-items: center; flex-wrap: wrap;
  padding: 8px 0 24px; margin-bottom: -12px; background: var(--dsw-alias-bg-layer-1); border-top: 1px solid var(--dsw-alias-border-l1); }
.ap-dirty { color: var(--dsw-alias-state-warn-label); }
.ap-grow { flex: 1; }
.ap-editor-head { align-items: flex-start; margin-bottom: 4px; }
.ap-editor-head h3 { min-width: 0; overflow-wrap: anywhere; }
.ap-fieldset { border: 0; padding: 0; margin: 12px 0; }
.ap-fieldset legend { font-weight: 600; margin-bottom: 4px; }
.ap-tools-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(160px, 1fr)); gap: 2px 12px; margin-bottom: 12px; }
.ap-tools-item { margin-bottom: 0; align-items: center; overflow-wrap: anywhere; }
.ap-tools-effective { color: var(--dsw-alias-label-secondary); font-size: 12px; word-spacing: 4px; overflow-wrap: anywhere; }
.ap-tools-unknown { margin: 4px 0 0; padding-left: 16px; }
.ap-tools-bytes { border-collapse: collapse; }
.ap-tools-bytes th, .ap-tools-bytes td { text-align: left; font-weight: 400; padding: 2px 16px 2px 0; }
.ap-tools-bytes tr[aria-current="true"] { font-weight: 600; color: var(--dsw-alias-brand-primary); }
.ap-split { display: flex; flex-direction: column; gap: 12px; }
/* A new profile that took the default: said in its editor, under its title, with the way back beside it. */
.ap-new-default { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin: 8px 0;
  border-left: 3px solid var(--dsw-alias-brand-primary); }
.ap-profile-list { border: 0; padding: 0; background: transparent; }
.ap-list-head { flex-wrap: nowrap; }
/* Read, not shown: the list's heading while it is folded, the tools legend under a tab of the same name. */
.ap-sr-only, .ap-profile-list h3, .ap-tabpanel[data-panel="tools"] > .ap-fieldset > legend { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.ap-list-toggle { flex: 1; min-width: 0; border: 1px solid var(--dsw-alias-border-l2); background: var(--dsw-alias-bg-base); }
.ap-list-chevron { margin-left: auto; color: var(--dsw-alias-label-tertiary); }
.ap-profile-list .ap-list { margin-top: 8px; padding: 4px; border: 1px solid var(--dsw-alias-border-l2); border-radius: 12px;
  background: var(--dsw-alias-bg-layer-1); max-height: 320px; }
.ap-profile-list .ap-list:not([data-open]) { display: none; }
@container ap-settings (min-width: 720px) {
  .ap-split { display: grid; grid-template-columns: minmax(170px, 220px) minmax(0, 1fr); align-items: start; }
  .ap-profile-list { position: sticky; top: 0; padding: 12px; border: 1px solid var(--dsw-alias-border-l1); background: var(--dsw-alias-bg-layer-1); }
  .ap-profile-list h3 { position: static; width: auto; height: auto; overflow: visible; clip: auto; }
  .ap-list-toggle { display: none; }
  .ap-profile-list .ap-list, .ap-profile-list .ap-list:not([data-open]) { display: flex; margin: 0; padding: 0; border: 0; max-height: 560px; }
}
`

const SHEETS = [BASE_CSS, SETTINGS_CSS, CONVERSATION_CSS]

/** The plugin's whole stylesheet, as installStyles puts it in the page. */
export const PLUGIN_CSS = SHEETS.join('\n')

/** Anything with a Cordis-style `effect` (the plugin's client context). */
export interface EffectHost {
  effect(execute: () => () => void, label?: string): unknown
}

/** Add the plugin's one <style> tag for as long as `ctx` lives. */
export function installStyles(ctx: EffectHost): void {
  if (typeof document === 'undefined') return
  ctx.effect(() => {
    const tag = document.createElement('style')
    tag.dataset.plugin = 'dsh-agent-profiles'
    tag.textContent = PLUGIN_CSS
    document.head.appendChild(tag)
    return () => {
      tag.remove()
    }
  }, 'agent-profiles: stylesheet')
}
