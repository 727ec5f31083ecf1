/** Ayuda: the help centre's questions by topic and their search. */
export { HelpCentre } from './components/help-centre'
export { HELP_TOPICS, searchHelp, type HelpQuestion, type HelpTopic } from './help-topics'
