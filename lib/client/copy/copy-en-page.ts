/**
 * The English copy of the settings page's frame and the profile editor: the page and its sections, the editor's fields
 * and hints, the avatar, the model, the tool profiles, the team libraries and the preview. Data only; copy-en.ts
 * merges the areas into one table and checks it complete against the Chinese keys; a key here that Chinese lacks fails
 * the build.
 */
import type { EnKey } from './copy-zh.ts'

/** English texts of the settings page's frame and the profile editor. */
export const page = {
  nav: 'Agent profiles',
  'page.title': 'Agent profiles',
  'page.intro':
    'Each profile holds a role, personality, speaking style, ground rules and long-term memory. Conversations without their own settings use the default profile; changes apply from the next turn and never touch the history.',
  'page.loading': 'Loading agent profiles…',
  'page.loadFailed': 'Could not load: {message}',
  'action.retry': 'Retry',
  'action.cancel': 'Cancel',
  'action.confirm': 'OK',
  'action.close': 'Close',

  // settings page sections (the page's tabs, the editor's tabs, the folded profile selector)
  'page.sections': 'Sections of Agent profiles',
  'section.profiles': 'Profiles',
  'section.files': 'Import, export & maintenance',
  'section.diagnostics': 'Diagnostics',
  'section.about': 'About you',
  'about.intro':
    'Memory about you yourself (name, preferences, background) that every profile with memory on reads; each profile\'s own memory and each conversation\'s stay their own. The model saves here with memory_save scope "user", and the background job when a fact is about you.',
  'about.share':
    "Each request carries up to {budget} characters of memory; this layer takes at most {share} of them (a third, more when the profile's own memory leaves room). It uses {used} now.",
  'about.items': 'Memories about you',
  'editor.sections': 'Sections of "{name}"',
  'section.profile': 'Profile',
  'section.memory': 'Memory',
  'section.tools': 'Tools',
  'section.preview': 'Preview',
  'section.model': 'Model',
  'model.label': 'Model its conversations answer on',
  'model.conversation': "The conversation's model (as picked in the composer)",
  'model.missing': '{model} ({provider}) — no longer offered by this host',
  'model.missingHint':
    'This host no longer offers the saved model: its conversations answer on their own model, with a notice on each turn, until you pick another one.',
  'model.hint':
    'Switching a conversation to this profile makes the composer show this model. A model you pick in the composer afterwards wins for that conversation until its next profile switch.',
  'model.loading': "Reading this host's models…",
  'model.loadFailed': "Could not read this host's models: {message}",
  'model.retry': 'Retry',
  'model.suggested':
    'An imported file suggests {value} (reasoning effort {effort}, temperature {temperature}). It is not used until you accept it.',
  'model.accept': 'Accept',
  'model.dismiss': 'Dismiss',
  'model.partial': 'Provider "{provider}" could not list its models',
  'model.noService': 'This host runs no model service, so there are no models to pick from.',
  'model.effort': 'Reasoning effort',
  'model.effortDefault': "The model's default",
  'model.effortDefaultIs': "The model's default ({effort})",
  'model.temperature': 'Temperature',
  'model.temperatureDefault': "The model's default",
  'model.temperatureHint': "From 0 (focused) to {max} (varied); empty keeps the model's default.",
  'model.why.no-provider': 'this host has no provider "{provider}" any more',
  'model.why.not-listed': 'provider "{provider}" no longer offers it',
  'model.why.no-key': 'provider "{provider}" has no API key yet (add it in Settings → Models)',
  'model.why.call-failed': 'provider "{provider}" refused the call (a rejected key, or no quota left?)',
  'model.why.effort':
    'the model does not offer the reasoning effort "{effort}" (choose another in the profile\'s Model)',
  'model.why.refused': "the host did not accept this model's settings",
  'detail.quoted': '{text} (in its own words: "{detail}")',
  'model.temperatureRange': 'The temperature must be between 0 and {max}.',
  'section.changed': 'changed',
  'list.choose': 'Choose a profile: ',

  'list.title': 'Profiles',
  'list.new': 'New profile',
  'list.default': 'Default',
  'list.library': 'Team: {name}',
  'library.title': 'Team libraries',
  'library.hint':
    "A team's repository of profiles, read only: its profiles appear in your list marked with its name and update on each pull. They are changed in the team's repository (a pull request); what you and the model save with them is your own memory. Removing a library takes its profiles out of your list; your memory of them is kept for when it comes back.",
  'library.none': 'No team library yet.',
  'library.remote': 'Team repository',
  'library.branch': 'Team branch',
  'library.name': 'Shown as',
  'library.add': 'Add library',
  'library.remove': 'Remove',
  'library.added': 'Added "{name}"',
  'library.removed': 'Removed "{name}": its profiles left the list',
  'library.pulled.one': 'pulled {time}, {count} profile',
  'library.pulled.other': 'pulled {time}, {count} profiles',
  'library.readOnly':
    'This profile comes from the team library "{library}": it is changed in the team\'s repository (a pull request), not here. Your memory of it and the model it runs on are your own.',
  'library.duplicate': 'Duplicate to edit',
  'library.asks':
    'The library asks for the tool profile "{tools}"; team profiles run with at most Read-only. Duplicate it to give your copy more.',
  'list.pinned.one': 'Pinned in {count} conversation',
  'list.pinned.other': 'Pinned in {count} conversations',
  'list.unnamed': '(unnamed)',

  'editor.title': 'Edit "{name}"',
  'editor.unsaved': 'Unsaved changes',
  'editor.changedElsewhere':
    'This profile was saved elsewhere meanwhile, with other {fields}. Your edits are kept until you choose.',
  'action.takeTheirs': 'Use the saved version',
  'action.keepEditing': 'Keep my edits',
  'editor.saved': 'Saved',
  'action.save': 'Save',
  'action.saving': 'Saving…',
  'action.discard': 'Discard changes',
  'action.duplicate': 'Duplicate',
  'action.delete': 'Delete',
  'action.setDefault': 'Set as default',
  'action.keepDefault': 'Keep "{name}" as the default',
  'editor.becameDefault':
    '"{name}" is now the default profile: every conversation not pinned to a profile uses it from its next turn.',
  'badge.isDefault': 'Default profile',
  'field.name': 'Name',
  'field.emoji': 'Emoji',
  'field.avatar': 'Avatar',
  'field.role': 'Role',
  'field.personality': 'Personality',
  'field.speakingStyle': 'Speaking style',
  'field.rules': 'Ground rules',
  'field.memoryEnabled': 'Inject long-term memory into the prompt',
  'field.summary': 'Memory summary',
  'field.items': 'Memory items',
  'field.note': 'Conversation note',
  'hint.role': 'Who it is, whom it works for, what it is responsible for.',
  'hint.personality': 'Temperament and attitude, e.g. patient, direct, rigorous.',
  'hint.speakingStyle': 'Tone, length and formatting preferences.',
  'hint.rules': 'Rules it must follow, one per line.',
  'hint.memoryEnabled': 'When off, memory is left out of the prompt entirely (it is kept and can be turned back on).',
  'hint.count': '{count} / {limit}',
  'editor.tooLong': '"{field}" has {count} characters, over the {limit} limit.',
  'editor.nameRequired': 'The name cannot be empty.',
  'confirm.unsaved': '"{name}" has unsaved changes. Discard them?',
  'confirm.unsavedAbout': '"About you" has unsaved changes. Discard them?',
  'confirm.delete': 'Delete "{name}"? This cannot be undone.',
  'confirm.deleteUnbind.one':
    'Delete "{name}"? {count} conversation pins it; it will follow the default profile again. This cannot be undone.',
  'confirm.deleteUnbind.other':
    'Delete "{name}"? {count} conversations pin it; they will follow the default profile again. This cannot be undone.',

  'avatar.pick': 'Choose image',
  'avatar.replace': 'Change image',
  'avatar.remove': 'Remove avatar',
  'avatar.working': 'Shrinking…',
  'avatar.result': 'Shrunk to {width}×{height} px, {size}',
  'avatar.hint': 'PNG, JPEG, WebP or GIF; shrunk in the browser to 512 px on the longest side before saving.',
  'avatar.svg': 'SVG images are not accepted (they can carry scripts). Choose a PNG, JPEG, WebP or GIF.',
  'avatar.type': 'Unsupported file type "{type}". Choose a PNG, JPEG, WebP or GIF.',
  'avatar.tooLarge': 'File too large: {size}; the limit is {limit}.',
  'avatar.encodedTooLarge':
    'The shrunk image is still {length} characters, over the {limit} limit. Try a simpler picture.',
  'avatar.decode':
    'This file could not be opened as a picture: it may be damaged, or in a format this browser does not read. Choose a PNG, JPEG, WebP or GIF.',
  'avatar.redraw':
    'This browser could not shrink the picture for the avatar. Try another picture, or save this one again as PNG or JPEG.',

  'preview.title': 'What the model sees',
  'preview.size': 'Characters: {chars} · tokens: about {tokens}',
  'preview.empty': 'This profile has no content yet and injects nothing.',
  'preview.loading': 'Rendering preview…',
  'preview.failed': 'Preview failed: {message}',
  'preview.draft': 'Rendered from the current draft, unsaved changes included.',

  'tools.title': 'Tools',
  'tools.profile': 'Tool profile',
  'tools.profile.full': 'Full (unchanged)',
  'tools.profile.read-only': 'Read-only',
  'tools.profile.worker': 'Worker',
  'tools.profile.custom': 'Custom',
  'tools.hint.full': 'Conversations get every tool this host offers, exactly as without this plugin.',
  'tools.hint.read-only':
    'Read, search, browse the web, plan and ask the user; no writing files, running commands or code, or starting subagents. Tools this plugin does not know (other plugins, MCP) are hidden too; add them by name if needed.',
  'tools.hint.worker':
    'Reads and writes files and runs commands; never asks the user and cannot start subagents. Other tools stay.',
  'tools.hint.custom': 'Starts from nothing: only the tools ticked below or added by name.',
  'tools.notMeasured':
    'The tools of this host have not been measured yet: open or start a conversation, then come back.',
  'tools.effective': 'Tools a conversation gets ({count})',
  'tools.none': 'No tools',
  'tools.pick': 'Turn single tools on or off',
  'tools.kept': 'This tool belongs to the conversation itself; a tool profile cannot hide it',
  'tools.addByName': 'Add a tool by name',
  'tools.add': 'Add',
  'tools.nameInvalid':
    'A tool name may contain letters, digits, "_", "-", "." and ":", and starts with a letter, digit or "_".',
  'tools.nameTooLong': 'A tool name has at most {limit} characters.',
  'tools.tooMany': 'At most {limit} tools can be added.',
  'tools.unknown.one': 'This host does not offer this tool (a typo, or its plugin is not installed); it has no effect:',
  'tools.unknown.other':
    'This host does not offer these {count} tools (a typo, or their plugin is not installed); they have no effect:',
  'tools.dropName': 'Remove {name}',
  'tools.bytes': 'Tool descriptions sent with every request',
  'tools.count.one': '{count} tool',
  'tools.count.other': '{count} tools',
  'tools.bytesSource': 'Sizes as measured on "{source}".',
  'tools.limitNote':
    'Narrowing tools prevents mistakes and makes every request lighter; a hidden tool is refused even if called. It is not a security boundary: a tool that runs commands can change files by itself.',

  'boundary.title': 'This part of the page failed',
  'boundary.hint': 'The rest of the page is unaffected. Retry, or reload the page.',
  'field.unknown': 'This value',
  'field.memoryText': 'Memory text',
  'field.keys': 'Search keys',
  'field.profiles': 'Profiles',
  'field.sessions': 'Conversation settings',
  'field.files': 'Files',
  'field.cast': 'Cast',
  'field.tools': 'Tools',
  // ask-first mode
  'field.memoryMode': 'Facts from the model and from extraction',
  'hint.memoryMode':
    'With "ask me first", facts from memory_save and the background job become suggestions that stay out of the prompt until approved; approve, edit or reject them here, in the conversation\'s ⚙ panel and in its "memory updated" row.',
  'time.justNow': 'just now',
  'live.off':
    'Live updates are off in this page: changes made in other tabs or by the model show when you come back to the page. Saving works as usual; reload the page to reconnect.',
} satisfies Partial<Record<EnKey, string>>
