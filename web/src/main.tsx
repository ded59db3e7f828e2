import { render } from 'preact';
import { App } from './app.js';
import './styles.css';
import { installVisibleControls } from './visible-controls.js';

installVisibleControls();

const root = document.getElementById('app');
if (root) render(<App />, root);
