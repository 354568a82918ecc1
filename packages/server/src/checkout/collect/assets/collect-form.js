// Tells the wallet hosting this page how data collection ended (D14), through every host bridge that exists:
// React Native WebView, iOS WKWebView, an Android JavaScript interface, and a parent window (web wallets, iframes).
(function () {
  'use strict';
  var raw = document.body && document.body.getAttribute('data-host-signal');
  if (!raw) return;
  var signal = JSON.parse(raw);
  var text = JSON.stringify(signal);
  var bridges = [
    // String only: React Native WebView's onMessage receives a string.
    function () {
      var bridge = window.ReactNativeWebView;
      if (bridge && typeof bridge.postMessage === 'function') bridge.postMessage(text);
    },
    // WKScriptMessageHandler: the object arrives as a dictionary.
    function () {
      var handlers = window.webkit && window.webkit.messageHandlers;
      var handler = handlers && handlers.payDataCollectionComplete;
      if (handler && typeof handler.postMessage === 'function') handler.postMessage(signal);
    },
    // @JavascriptInterface methods take strings.
    function () {
      var bridge = window.AndroidWallet;
      if (bridge && typeof bridge.onDataCollectionComplete === 'function') bridge.onDataCollectionComplete(text);
    },
    function () {
      if (window.parent && window.parent !== window) window.parent.postMessage(signal, '*');
    },
  ];
  // One failing bridge must not keep the others from hearing.
  bridges.forEach(function (notify) {
    try {
      notify();
    } catch (error) {
      if (window.console) window.console.error(error);
    }
  });
})();
