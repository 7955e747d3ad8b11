// The review pages: one document, one view per URL fragment (#/, #/leaderboard/OP, #/candidate/ID,
// #/history), each drawn from the daemon's JSON API with the token of this browser.
import { token, whoami } from './api.js';
import { h, clear } from './dom.js';
import { opsView } from './view_ops.js';
import { leaderboardView } from './view_leaderboard.js';
import { candidateView } from './view_candidate.js';
import { historyView } from './view_history.js';

const view = document.getElementById('view');
const who = document.getElementById('who');
const form = document.getElementById('signin');
const input = document.getElementById('token');
const signout = document.getElementById('signout-button');

let session = { signedIn: false, reviewer: false };
let current = null;  // the view's controller: {stop()} ends its live streams

async function refreshSession() {
  try {
    session = await whoami();
  } catch (e) {
    session = { signedIn: false, reviewer: false, problem: e.message };
  }
  who.textContent = session.signedIn ? `${session.name} (${session.role}${session.reviewer ? '' : ', read only'})`
                                     : session.problem || 'not signed in';
  who.dataset.role = session.signedIn ? session.role : 'none';
  signout.hidden = !token.get();
  input.value = '';
}

function route(el) {
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path, query] = hash.split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const q = new URLSearchParams(query || '');
  if (parts[0] === 'leaderboard' && parts[1]) return leaderboardView(el, parts[1], q, session);
  if (parts[0] === 'candidate' && parts[1]) return candidateView(el, parts[1], session);
  if (parts[0] === 'history') return historyView(el, parts[1] || '', session);
  if (parts.length === 0) return opsView(el, session);
  el.append(h('h1', {}, 'Not found'), h('p', {}, `No page ${hash}.`));
  return null;
}

// Each render draws into a fresh element, shown once its data is in; a render overtaken by a
// newer one (a click while loading) is dropped, and its live streams stopped.
let generation = 0;
async function render() {
  const mine = ++generation;
  if (current && current.stop) current.stop();
  current = null;
  document.body.dataset.ready = 'false';
  const el = h('div', { class: 'page' });
  let controller = null;
  if (!session.signedIn) {
    el.append(h('h1', {}, 'Sign in'),
      h('p', {}, 'Type a token in the field above (kwb token create --role reviewer, or an agent token to read). ',
        'It is kept in this browser only and sent as an Authorization header; the daemon checks its role on every request.'));
  } else {
    try {
      controller = await route(el);
    } catch (e) {
      clear(el).append(h('h1', {}, 'Error'), h('p', { class: 'error', role: 'alert' }, e.message || String(e)));
    }
  }
  if (mine !== generation) {
    if (controller && controller.stop) controller.stop();
    return;
  }
  current = controller;
  clear(view).append(el);
  document.body.dataset.ready = 'true';
}

form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const t = input.value.trim();
  if (t) token.set(t);
  await refreshSession();
  if (!session.signedIn && t) token.clear();
  signout.hidden = !token.get();
  render();
});
signout.addEventListener('click', async () => {
  token.clear();
  await refreshSession();
  render();
});
window.addEventListener('hashchange', render);

refreshSession().then(render);
