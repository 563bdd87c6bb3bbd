// The Deep Linking response's page (app/lti/deep_linking.py) posts its form to the platform at once;
// without scripts its Continue button does.
document.getElementById('response').submit();
