/**
 * The English copy of files and the data: import and export, what an import reports, backups, sync and the data's
 * health. Data only; copy-en.ts merges the areas into one table and checks it complete against the Chinese keys; a key
 * here that Chinese lacks fails the build.
 */
import type { EnKey } from './copy-zh.ts'

/** English texts of files and the data. */
export const files = {
  'io.exportUser.one': 'Include "About you" in the export ({count} item)',
  'io.exportUser.other': 'Include "About you" in the export ({count} items)',
  'io.userAdded.one':
    'The files carried {count} new memory about you: it waits as a suggestion under “About you” and reaches no conversation until you approve it.',
  'io.userAdded.other':
    'The files carried {count} new memories about you: they wait as suggestions under “About you” and reach no conversation until you approve them.',

  'io.title': 'Import and export',
  'io.export': 'Export file',
  'io.exportHint': 'Exports every profile with avatars and memory (conversation settings are not included).',
  'io.import': 'Import file',
  'io.mode': 'Import mode',
  'io.merge': 'Merge (keep current profiles; identical ones are skipped, and you choose for a clashing id)',
  'io.replace': 'Replace (the file replaces every profile)',
  'io.imported.one': 'Imported {count} profile from "{file}".',
  'io.imported.other': 'Imported {count} profiles from "{file}".',
  'io.parseError':
    '"{file}" is not a valid profiles file (it is damaged or not JSON); nothing was imported. Pick a file exported here and import it again',
  'io.readError': '"{file}" could not be read (moved, or not allowed to be read?); nothing was imported',
  'io.fileTooLarge': '"{file}" is too large: {size}; the limit is {limit}.',
  'io.confirmReplace.one': 'Replace your {count} current profile with "{file}"? This cannot be undone.',
  'io.confirmReplace.other': 'Replace all {count} current profiles with "{file}"? This cannot be undone.',
  'io.confirmLarge':
    'This file is large: "{file}" holds more than a shared file brings (profiles: {profiles}, memory items: {items}). Import it? Say yes only for an export of your own.',
  'io.importingLarge': 'Importing "{file}"; the page and your conversations keep working meanwhile.',
  'io.progressLabel': 'Importing "{file}"',
  'io.progress': '{done} of {total} written',
  'io.importStopped': 'The import of "{file}" stopped before the end: the profiles written so far stay.',
  'io.maintenance': 'Maintenance',
  'io.restore': 'Restore factory defaults',
  'io.confirmRestore.one':
    'Restore the factory profiles? Your {count} profile and every conversation setting will be removed. This cannot be undone.',
  'io.confirmRestore.other':
    'Restore the factory profiles? Your {count} profiles and every conversation setting will be removed. This cannot be undone.',
  'io.clearSessions': 'Clear all conversation settings',
  'io.confirmClearSessions.one':
    'Clear the settings of {count} conversation? It will follow the default profile again; the profiles themselves are kept.',
  'io.confirmClearSessions.other':
    'Clear the settings of {count} conversations? They will follow the default profile again; the profiles themselves are kept.',
  'io.importHint':
    "Imports files exported here, Character Cards (PNG, JSON or CHARX; V1/V2/V3), other apps' role files (JSON), and Markdown profile, agent and persona files (such as SOUL.md or AGENTS.md), several at once; cards and Markdown are always merged.",
  'io.importFolder': 'Import folder',
  'io.skippedType': '"{file}" is not a profile file (.json, .png, .charx or .md); skipped.',
  'io.nothingImported': 'No profile was imported.',
  'io.exportProfile': 'Export one profile',
  'io.exportCardPng': 'Card PNG',
  'io.exportCardJson': 'Card JSON',
  'io.exportCharx': 'CHARX',
  'io.fileUnchanged': '"{file}": "{name}" is the same as a profile you have; not imported again.',
  'io.conflictTitle':
    'These profiles have the id or the name of one you have, with other content. For each, keep both or update yours:',
  'io.conflictItem': '"{name}" from "{file}" (yours: "{existing}")',
  'importClash.differs': 'Differs in: {fields}.',
  'importClash.sep': '; ',
  'importClash.name': 'name (yours “{mine}”, the file’s “{theirs}”)',
  'importClash.emoji': 'emoji',
  'importClash.avatar': 'avatar',
  'importClash.role': 'role',
  'importClash.personality': 'personality',
  'importClash.speakingStyle': 'speaking style',
  'importClash.rules': 'ground rules',
  'importClash.memoryEnabled': 'whether memory goes into the prompt',
  'importClash.memory': 'memory items (yours: {mine}, the file’s: {theirs})',
  'importClash.tools': 'tools',
  'importClash.model': 'model (yours {mine}, the file’s {theirs})',
  'importClash.conversationModel': 'the conversation’s',
  'io.keepBoth': 'Keep both',
  'io.replaceOne': 'Replace this one',
  'io.updateOne': 'Update "{existing}" with the file\'s version',
  'io.keepBothAs': 'Keep both (the file\'s one as "{name}")',
  'io.applyChoices': 'Import with these choices',
  'io.skipConflicts': 'Import none of them',
  'io.exportMarkdown': 'Markdown',
  'io.exportOneHint':
    'Cards work in SillyTavern and similar tools; Markdown suits version control. For a complete backup use "Export file".',
  // The data's health (lib/client/settings/DataHealth.tsx): read-only data, rows set aside, a salvage, the check.
  'data.newer':
    'This data was made by a newer version of this plugin; update to edit. It can be viewed here, but nothing is saved.',
  'data.newerUnreadable':
    'This data was made by a newer version of this plugin that this version cannot read; update the plugin. The factory profiles are shown and nothing is saved.',
  'data.unwritable.permission':
    'The data directory cannot be written: this user has no permission to write there. Nothing is saved.',
  'data.unwritable.read-only': 'The data directory cannot be written: its disk is mounted read-only. Nothing is saved.',
  'data.unwritable.error': 'The data directory cannot be written, so nothing is saved.',
  'data.title': 'Data',
  'data.readOnly': 'Read-only',
  'data.setAside': 'Rows set aside',
  'data.setAsideNone': 'None',
  'data.setAsideHint':
    "These rows break this version's rules: they stay in the database as they are, not loaded; a version that can read them finds them intact.",
  'data.mended': '(mended in memory)',
  'data.why.over-limit.one': 'past the {count} row this version keeps',
  'data.why.over-limit.other': 'past the {count} rows this version keeps',
  'data.why.no-profile': 'belongs to a profile that is not there ("{id}")',
  'data.why.active-missing':
    'names a default profile that is not there ("{id}"); the first profile stands in until another is chosen',
  'data.why.avatar-file': 'the avatar file name is not one; the profile shows its emoji',
  'data.why.not-json': 'its text is not readable JSON',
  'data.why.refused': 'field "{field}" holds a value this version cannot read',
  'data.salvage': 'Salvage',
  'data.salvageValue':
    'From the damaged database, rows saved: {saved}, rows lost: {lost}; the damaged file was kept in the data directory as {path}',
  'data.salvageUncounted':
    'From the damaged database, rows saved: {saved}, rows lost: at least {lost} (some tables could not be counted); the damaged file was kept in the data directory as {path}',
  'data.upgradeTitle': 'Data file upgrade',
  'data.upgrade.running':
    'Under way in the background: this version marks each saved memory so that a turn reads only the memory it uses. Everything works meanwhile, only the first turn is slower until it ends.',
  'data.upgrade.stopped':
    'Stopped by an error (see the log); everything works, and it resumes at the next start of dsh.',
  'data.checkTitle': 'Integrity check',
  'data.check.pending':
    'Not run yet: soon after dsh starts, the whole data file is read in the background without slowing your turns.',
  'data.check.sound': 'Checked {time}: the data file is sound.',
  'data.check.damaged':
    'Checked {time}: the data file is damaged. Nothing you saved is lost: at the next start of dsh the file is kept aside and every readable row is copied into a new one.',
  'data.check.not-run': 'Could not run ({time}); it is tried again at the next start of dsh.',
  'sync.title': 'Sync (several machines)',
  'sync.hint':
    "Keep your profiles and their memory the same on every machine: give a git repository (ssh, https or a folder path) that only you use. This machine commits each change there, and takes in what your other machines saved, in the background. Git's own sign-in is used; nothing secret is kept here. Conversation settings stay on each machine.",
  'sync.remote': 'Git repository',
  'sync.branch': 'Branch',
  'sync.save': 'Save',
  'sync.now': 'Sync now',
  'sync.saved': 'Sync settings saved',
  'sync.done': 'Synced',
  'sync.off': 'Sync is off: no repository is set.',
  'sync.running': 'Syncing…',
  'sync.never': 'Not synced yet.',
  'sync.last': 'Last synced {time}.',
  'sync.error.git-missing': 'git is not installed on this machine, so nothing can sync.',
  'sync.error.unreachable':
    'The repository cannot be reached (offline, or the address is wrong). Your changes are kept and sent when it can be reached.',
  'sync.error.auth': "The repository refused this machine's sign-in. Check that git can push there from this machine.",
  'sync.error.rejected': 'The repository refused the push; the next sync takes in its changes first and tries again.',
  'sync.error.rewritten':
    "The repository's history was rewritten (a force push): nothing was taken in and nothing here changed. Set the repository again to start over from what it holds now.",
  'sync.error.refused-content':
    'The repository holds something a sync refuses (a symlink, a path outside its folder, a file too large or too many files). Nothing was taken in.',
  'sync.error.bad-file': 'A file in the repository is not valid. Nothing was taken in.',
  'sync.error.timeout': 'git took too long; the sync tries again later.',
  'sync.error.busy': 'Another dsh process is syncing; this one tries again shortly.',
  'sync.error.store': 'What the repository holds could not be saved here. Nothing changed.',
  'sync.error.failed': 'The sync failed; it tries again later.',
  'sync.note.keptHere': '"{name}" was deleted here but edited on another machine, so it was kept.',
  'sync.note.keptThere': '"{name}" was deleted on another machine but edited here, so it was kept.',
  'sync.note.memory.one':
    '"{name}": {count} memory was edited on two machines; the newer was kept, the other is in its memory history.',
  'sync.note.memory.other':
    '"{name}": {count} memories were edited on two machines; the newer were kept, the others are in its memory history.',
  'sync.note.field': '"{name}": {field} was edited on two machines; the newer was kept. The other read: {lost}',
  'backup.title': 'Restore a backup',
  'backup.hint':
    'After the first save of each day the plugin keeps a copy of the data (avatars included); the last 7 are kept. Before a restore, the current data becomes a backup too.',
  'backup.none': "No backup yet: there will be one after today's first save.",
  'backup.pick': 'Pick a date',
  'backup.beforeRestore': 'The data before a restore ({time})',
  'backup.holds': 'Profiles: {profiles} · memories: {items} · conversation settings: {sessions} · {size}',
  'backup.profile.one': '"{name}" · {count} memory',
  'backup.profile.other': '"{name}" · {count} memories',
  'backup.restore': 'Restore this backup',
  'backup.confirm':
    'Replace all current data with the backup of {name}? The current data becomes a backup first, so it can be restored again.',
  'backup.restored': 'Restored the backup of {name}; the data before it was kept as a backup.',
  // import reports: notes and per-file refusals of profiles.importFiles (lib/shared/import-notes.ts), by key
  'import.more.one': '{count} more note not shown',
  'import.more.other': '{count} more notes not shown',
  'import.forbiddenKeys.one':
    'The file has {count} key named __proto__, constructor or prototype, which cannot be stored; it was left out',
  'import.forbiddenKeys.other':
    'The file has {count} keys named __proto__, constructor or prototype, which cannot be stored; they were left out',
  'import.specGuessed':
    'The card does not say which version it is; it was read as a V2 card. Check the profile in the settings page',
  'import.avatarUnusable':
    'The avatar the card carries cannot be used, so the profile has none; pick one in the settings page',
  'import.chunkSkipped.one': 'The picture holds {count} damaged copy of the card; the next good one was used',
  'import.chunkSkipped.other': 'The picture holds {count} damaged copies of the card; the next good one was used',
  'import.chunksNotRead': 'The picture holds too many card copies: the first {limit} were read, {count} more were not',
  'import.pictureCut': 'The picture is cut short, so it is not used as the avatar; pick one in the settings page',
  'import.pictureTooBig':
    'The picture is too large for an avatar ({length} characters, limit {limit}); import the card in the settings page (it shrinks the picture) or pick an avatar',
  'import.iconTooBig':
    'The CHARX icon is too large for an avatar ({length} characters, limit {limit}); pick an avatar in the settings page',
  'import.iconType':
    'The CHARX icon is a .{ext} picture, which cannot be an avatar (PNG, JPEG, WebP, GIF can); pick one in the settings page',
  'import.iconUnreadable': 'The CHARX icon cannot be read, so the profile has no avatar; pick one in the settings page',
  'import.toolsUnusable':
    'The tool settings the card carries cannot be used; the profile has the default tools. Adjust them in the settings page',
  'import.surrogates': '{where} had broken characters; they were replaced by �',
  'import.bidi': 'Text direction controls were removed from {where} (they make a name read backwards)',
  'import.readAsText': '{where} was not text; it was read as text',
  'import.listJoined': '{where} was a list; it was joined into one text',
  'import.notText': '{where} is not text; it was left out',
  'import.controls': 'Control characters were removed from {where}',
  'import.cut':
    '{where} has {length} characters, over the limit of {limit}; it was cut. Shorten it in the settings page',
  'import.cutKept':
    '{where} has {length} characters, over the limit of {limit}; it was cut. The card keeps the whole text for export',
  'import.nameReserved':
    'The profile "{from}" was named "{to}": "{from}" is a word of the plugin, which asks every profile of the cast at once',
  'import.nameTaken': 'The profile "{from}" was named "{to}": another profile is already called "{from}"',
  'import.unnamed': 'The file names no profile; it was named "{name}" after the file',
  'import.extrasDropped.one':
    "The card's extra content is over its {limit}-character limit: {count} part was not kept ({names}); an exported card will not carry it",
  'import.extrasDropped.other':
    "The card's extra content is over its {limit}-character limit: {count} parts were not kept ({names}); an exported card will not carry them",
  'import.greetings.one':
    "The card's greeting (a {length}-character text) and {count} alternate greeting are not used: a profile does not open a conversation. They are kept, so an exported card carries them",
  'import.greetings.other':
    "The card's greeting (a {length}-character text) and {count} alternate greetings are not used: a profile does not open a conversation. They are kept, so an exported card carries them",
  'import.bookKeys':
    '{where} has {count} keys; the first {kept} were kept (keys are at most {limit} characters together)',
  'import.memoryItems': 'The file has {count} memories; the first {limit} were imported (the limit)',
  'import.bookNotObject': "The card's lorebook is malformed; it was not imported",
  'import.bookEntriesNotList': "The entries of the card's lorebook are malformed; they were not imported",
  'import.bookEntriesCut': 'The lorebook has {count} entries; the first {limit} were read',
  'import.bookEntryNotObject': '{where} is malformed; it was left out',
  'import.bookDisabled.one': '{count} disabled lorebook entry was not imported',
  'import.bookDisabled.other': '{count} disabled lorebook entries were not imported',
  'import.bookSplit': '{where} has {length} characters; it became {count} memories of at most {limit} characters',
  'import.bookArchived.one':
    '{count} lorebook entry went to the memory archive, recalled when its keys come up in a conversation; {core} are always-on memories',
  'import.bookArchived.other':
    '{count} lorebook entries went to the memory archive, recalled when their keys come up in a conversation; {core} are always-on memories',
  'import.bookArchivedAll.one':
    '{count} lorebook entry went to the memory archive, recalled when its keys come up in a conversation',
  'import.bookArchivedAll.other':
    '{count} lorebook entries went to the memory archive, recalled when their keys come up in a conversation',
  'import.tavernLike':
    'The file is not a standard card; it was read as a similar format. Check the profile in the settings page',
  'import.unusedText':
    '{where} (a {length}-character text) fits no profile field: kept for export, not shown to the model',
  'import.roleFile':
    "The file is not a character card; it was read as another app's role file. Check the profile in the settings page",
  'import.notImported': '{where} (a {length}-character text) was not imported',
  'import.toolsNotList': 'The tools in the front matter are not a list of tool names; they were left out',
  'import.toolsCut': 'The front matter lists {count} tools; the first {limit} were read',
  'import.toolsUnknown.one': '{count} tool of the front matter is not on this host ({names}); it was left out',
  'import.toolsUnknown.other': '{count} tools of the front matter are not on this host ({names}); they were left out',
  'import.frontNotYaml':
    'The front matter is not valid YAML; it was read line by line as "key: value". Check the profile in the settings page',
  'import.frontNotMap': 'The front matter is not a list of "key: value" lines; it was left out',
  'import.frontUnknownKey':
    'The front matter key "{key}" is none of name, emoji, memory, description, tools or model; it was left out',
  'import.modelNoProvider':
    'The front matter model "{value}" names no provider (provider/model); it was left out and the conversation\'s model answers',
  'import.modelSuggested':
    'The file asks "{name}" to answer on {value} (reasoning effort {effort}, temperature {temperature}); it is held as a suggestion until you accept it in the Model section',
  'import.memorySwitch': 'The front matter memory switch "{value}" is neither on nor off; memory stays on',
  'import.headingsCut':
    'The file has {count} "{level}" headings; the first {limit} are read as sections, the rest as text of the last one',
  'import.textBefore': 'The text before the first "{level}" heading went into {into}',
  'import.noSections': 'The file has no "##" sections; its text went into {into}. Tidy it in the settings page',
  'import.sectionTwice': 'The section "{title}" appears twice; the texts were joined',
  'import.sectionMemory': 'The section "{title}" was read as memories',
  'import.sectionAs': 'The section "{title}" went into {into}, under its own heading',
  'import.sectionRules':
    'The section "{title}" is not a profile field; it went into the ground rules under its own heading',
  'import.titleFileName': 'The title "{title}" starts with a file name; the profile was named "{name}"',
  'import.tooDeep': 'The file is nested more than {limit} levels deep, unlike any profile file; it was not imported',
  'import.tooManyValues':
    'The file holds more than {limit} values; it was not imported. Trim it (the lorebook, say) and import it again',
  'import.largeFile':
    'The file is large (profiles: {profiles}, memory items: {items}), more than a shared file brings; it is imported only when you confirm it is an export of your own',
  'import.charxOutside': 'The CHARX has an entry that points outside the archive; for safety it was not imported',
  'import.charxMissing': 'The CHARX lacks a file its card needs; it was not imported. Export the card again',
  'import.charxEntryTooBig':
    'A file in the CHARX expands to {size} bytes, over the limit of {limit}; it was not imported',
  'import.chunkEmpty': 'The card data in the picture is empty; it was not imported',
  'import.chunkNotCard':
    'The card data in the picture is damaged; it was not imported. Download or export the card again',
  'import.truncated':
    'The file is cut short (as if its download or copy stopped early); it was not imported. Download it again',
  'import.jsonTooLong': 'The card data has {length} characters, over the limit of {limit}; it was not imported',
  'import.notJson': 'The file is damaged or not a card; it was not imported. Export or download it again',
  'import.notCard':
    'This is not a character card (a card is a PNG with a card inside, a card JSON or a CHARX); it was not imported',
  'import.noData': 'The card has no character data; it was not imported',
  'import.frontTooLong': 'The front matter has {length} characters, over the limit of {limit}; it was not imported',
  'import.tooLong': 'The file has {length} characters, over the limit of {limit}; it was not imported',
  'import.tooManyLines': 'The file has more than {limit} lines; it was not imported. Split it into several files',
  'import.frontUnclosed':
    'The file starts with "---" but has no closing "---" line; it was not imported. Add that line',
  'import.empty': 'The file is empty; it was not imported',
  'import.zipUnreadable': 'The archive is damaged and cannot be read; it was not imported. Download or export it again',
  'import.zipTooManyEntries': 'The archive holds {count} files, over the limit of {limit}; it was not imported',
  'import.zipMethod':
    'The archive uses a compression method that cannot be read ({method}); it was not imported. Pack it again as a plain zip',
  'import.zipDamaged': 'A file in the archive is damaged; it was not imported. Download or export it again',
  'import.zipBomb': 'The archive expands past {limit} bytes and looks malicious; it was not imported',
  'import.pngNoCard':
    'This PNG holds no character card, only a picture; it was not imported. To use it as an avatar, pick it in the profile editor',
  'import.charxNoCard': 'This CHARX has no card (card.json); it was not imported',
  'import.pngDamaged': 'The PNG file is damaged; it was not imported. Download it again',
  'import.unreadable': 'The file could not be read; it was not imported',
  'import.notStorable':
    'The profile in the file breaks a rule of what can be stored; it was not imported. Fix it where it came from and export it again',
  'import.tooSlow': 'Reading this file used over {seconds} s of processor time and was stopped; it was not imported',
  'import.notFinished': 'Reading this file did not finish within {seconds} s and was stopped; it was not imported',
  'import.tooBig': 'Reading this file needs more memory than an import may use; it was not imported',
  'import.notReached':
    'The import stopped at an earlier file before reading this one; it was not imported. Import it again on its own',
  'import.exportNotExport':
    'This is not a ChatGPT or Claude data export (its conversations.json holds a list of conversations); nothing was read',
  'import.exportNoConversations':
    'The archive has no conversations.json; nothing was read. Pick the zip the service mailed, or its conversations.json',
  'import.exportEmpty': 'The export holds no conversation; nothing was read',
  'import.exportTooLarge':
    'The export is {size} bytes, over the limit of {limit}; nothing was read. Pick its conversations.json alone',
  'import.exportTooDeep':
    'The export is nested more than {limit} levels deep, unlike any real export; nothing was read',
  'import.exportTooManyValues': 'The export holds more than {limit} values; nothing was read',
  'import.exportTooManyConversations': 'The export holds more than {limit} conversations; nothing was read',
  'import.exportTooManyMessages': 'The export holds more than {limit} messages; nothing was read',
  'import.exportConversationTooBig': 'A conversation of the export holds more than {limit} values; nothing was read',
  // Every refusal's reason already ends in "not imported", and the list sits under "No profile was imported".
  'import.fileFailed': '"{file}": {reason}',
  'import.fileNote': '"{file}": {note}',
  'import.where.file': 'the file',
  'import.where.chunk': 'the card data in the picture',
  'import.where.charxCard': 'the card in the CHARX',
  'import.where.front': 'the front matter',
  'import.where.name': 'the name',
  'import.where.nickname': 'the nickname',
  'import.where.description': 'the description',
  'import.where.personality': 'the personality',
  'import.where.scenario': 'the scenario',
  'import.where.first_mes': 'the greeting',
  'import.where.mes_example': 'the example dialogue',
  'import.where.system_prompt': 'the system prompt',
  'import.where.post_history_instructions': 'the post-history instructions',
  'import.where.creator_notes': "the creator's notes",
  'import.where.alternate_greetings': 'the alternate greetings',
  'import.where.tags': 'the tags',
  'import.where.creator': 'the creator',
  'import.where.character_version': 'the card version',
  'import.where.spec': 'the card spec',
  'import.where.role': 'the role',
  'import.where.speakingStyle': 'the speaking style',
  'import.where.rules': 'the ground rules',
  'import.where.emoji': 'the emoji',
  'import.where.summary': 'the memory summary',
  'import.where.items': 'the memories',
  'import.where.memory': 'the memory',
  'import.where.memoryItem': 'memory {n}',
  'import.where.book': 'the lorebook',
  'import.where.bookEntry': 'lorebook entry {n}',
  'import.where.tools': 'the tools',
  'import.where.model': 'the model',
  'import.where.cardField': 'the card\'s "{key}"',
} satisfies Partial<Record<EnKey, string>>
