/**
 * The English copy of the conversation: the composer's quick switcher, the ⚙ panel, turn heads, speakers and mentions.
 * Data only; copy-en.ts merges the areas into one table and checks it complete against the Chinese keys; a key here
 * that Chinese lacks fails the build.
 */
import type { EnKey } from './copy-zh.ts'

/** English texts of the conversation. */
export const conversation = {
  'turn.deletedProfile': 'A deleted profile',
  'turn.model': 'Answered on {model} ({provider})',
  'turn.modelUser': 'Answered on {model} ({provider}), picked in the composer',
  'turn.profileModel': "The profile's model: {model}",
  'turn.modelFallback':
    "The profile's model {wanted} is not available ({reason}); {model} ({provider}) answered instead",
  'turn.modelFallbackShort': "⚠ Profile's model unavailable, {model} answered",
  'turn.memoriesUsed.one': '{count} memory used',
  'turn.memoriesUsed.other': '{count} memories used',
  'turn.memoriesTitle': 'Memories this turn used',
  'turn.memoriesNone': 'No memories were recorded for this turn.',
  'turn.memoryInSettings': 'Edit in settings',
  'turn.memoryInPanel': 'Edit in the ⚙ panel',
  'turn.recalled': 'Recalled',
  'turn.recalledHint':
    'Brought back from memory for what you wrote in this turn; not part of the always-present memory.',
  'turn.savedAt': '(saved {time})',
  'speakers.rowNext': '"{name}" answers next',
  'speakers.rowBack': 'Back to "{name}"',

  'switcher.loading': 'Agent…',
  'switcher.retry': 'Agent profiles',
  'switcher.loadFailed': 'Could not load agent profiles. {message} Click to retry.',
  'switcher.label': 'Agent of this conversation: {name} ({state})',
  'switcher.pinned': 'Pinned',
  'switcher.model': 'Model: {model}',
  'switcher.following': 'Default',
  'switcher.menu': 'Profile for this conversation',
  'switcher.follow': 'Follow the default profile',
  'switcher.followHint': 'Default now: {name}',
  'switcher.settings': "This conversation's settings",
  'switcher.didPin': 'This conversation now uses "{name}" from the next turn',
  'switcher.didPinElsewhere':
    '"{name}" was pinned to the conversation that was open when you picked, not to this one; pick it again to use it here',
  'switcher.didFollowElsewhere':
    'The conversation that was open when you picked now follows the default profile "{name}"; this one did not change',
  'switcher.failedElsewhere': 'The pick in the conversation that was open before did not go through: {message}',
  'switcher.didFollow': 'This conversation follows the default profile "{name}" from the next turn',
  'panel.title': 'This conversation',
  'panel.usingPinned': 'Pinned to "{name}"',
  'panel.usingDefault': 'Follows the default profile "{name}"',
  'panel.notePlaceholder': 'For example: answer in English in this conversation',
  'panel.noteHint': 'Applies to this conversation only, after the profile; takes effect from the next turn.',
  'panel.memories': 'Conversation-only memories',
  'panel.memoriesHint': "Injected in this conversation only; the profile's own memory is not changed.",
  'panel.clear': "Clear this conversation's settings",
  'panel.confirmClear.one':
    "Clear this conversation's settings? The pinned profile, the note and {count} conversation-only memory are removed, and the conversation follows the default profile again.",
  'panel.confirmClear.other':
    "Clear this conversation's settings? The pinned profile, the note and {count} conversation-only memories are removed, and the conversation follows the default profile again.",
  'panel.confirmDiscard': "This conversation's settings have unsaved changes. Discard them?",
  'panel.incognito': 'Incognito: this conversation writes no memory',
  'panel.incognitoHint':
    "The conversation still reads memory, but the model's memory_save is refused and the background job extracts nothing from it. Applies at once.",
  'panel.refreshMemory': 'Refresh memory',
  'panel.refreshMemoryHint':
    'While the model and the background job save facts, this conversation keeps the memory it started with, so the provider can reuse its cached history (the model saw those facts in the conversation). Refresh to give it the current memory from the next turn. Your own edits always apply from the next turn.',
  'switcher.incognito': 'Incognito',
  'switcher.incognitoHint': 'This conversation is incognito: it reads memory but writes none',
  'panel.saved': 'Saved for this conversation; applies from the next turn',
  'switcher.pending': '{count} to approve',
  'switcher.pendingHint.one': '{count} memory suggestion awaits your approval (see the ⚙ panel)',
  'switcher.pendingHint.other': '{count} memory suggestions await your approval (see the ⚙ panel)',
  'cast.add': 'Add "{name}" to the cast (@all answers in turn)',
  'cast.remove': 'Take "{name}" out of the cast',
  'cast.hint':
    'Write @name in a message to have one profile answer it; @all asks each profile of the cast in turn (at most {limit}).',
  // @ mentions in the composer
  'mention.section': 'Agent profiles',
  'mention.candidate': 'Have "{name}" answer this message',
  'mention.ambiguous': '"{word}" matches {count} profiles ({names}): write the whole name.',
  'mention.nested':
    '"@{word}…" could mean {names}: end the name with a space or punctuation (as in "@{word} …"), or no one is asked.',
  'mention.same': '{count} profiles are called "{word}": rename one in the settings, so that @ reaches each.',
  'mention.everyone': 'the whole cast (@all)',
  'mention.allCandidate': "Ask each profile of this conversation's cast in turn",
  'mention.all':
    "@all asks each profile of the conversation's cast in turn; this conversation has no cast yet (add one in the switcher).",
} satisfies Partial<Record<EnKey, string>>
