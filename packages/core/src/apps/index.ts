export { APP_MIME_TYPE, APPS_EXTENSION, checkResourceUi, checkToolUi, clientShowsApps, isAppOnly, toolUiMeta, withoutToolUi } from './ui';
