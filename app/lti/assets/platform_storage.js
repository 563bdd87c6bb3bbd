// An LTI tool page that asks the platform's window to keep or to give back one value (LTI client-side
// postMessage storage), then goes on: the login's page (lti.put_data) to the platform's login, the
// launch's page (lti.get_data) posting the launch again with what was kept. Its settings are the page's
// JSON (#lti-storage, app/lti/storage.py); an answer from any other origin, or for another message, is
// not ours; no answer within settings.wait goes on without one.
(function () {
  var settings = JSON.parse(document.getElementById('lti-storage').textContent);
  var target = settings.target === '_parent' ? window.parent : window.parent.frames[settings.target];
  var id = 'overlap-lab-' + Math.random().toString(36).slice(2);
  var done = false;
  function then(value) {
    if (settings.subject === 'lti.put_data') {
      window.location.replace(settings.next);
      return;
    }
    var form = document.getElementById('launch');
    form.elements.lti_login.value = value || '';
    form.submit();
  }
  function listen(event) {
    var data = event.data;
    if (event.origin !== settings.origin || !data || data.message_id !== id) { return; }
    if (data.subject === settings.subject + '.response') { finish(data.error ? null : data.value); }
  }
  function finish(value) {
    if (done) { return; }
    done = true;
    window.removeEventListener('message', listen);
    then(value);
  }
  window.addEventListener('message', listen);
  var message = {subject: settings.subject, message_id: id, key: settings.key};
  if (settings.subject === 'lti.put_data') { message.value = settings.value; }
  try { target.postMessage(message, settings.origin); } catch (error) { finish(null); }
  setTimeout(function () { finish(null); }, settings.wait);
})();
