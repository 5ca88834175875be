/* The Share button of a finished game (templates/shell/_share.html), loaded only by the end
 * screens that have one. The image is in the page (<template data-share-image>: an SVG in the
 * light scheme), so sharing works with no network: the SVG is drawn on a canvas, three times its
 * size, as a PNG, made as soon as the page is idle so that a tap hands it over at once (a share
 * sheet wants the tap's own moment). A phone that can share files gets the share sheet with the
 * image and a line of text (Web Share API); any other browser downloads the image. */
(function () {
  if (window.companionShare) return;  // once a page
  window.companionShare = true;
  var made = new WeakMap();  // button -> Promise of the File

  function svgOf(button) {
    var template = button.parentNode.querySelector("template[data-share-image]");
    var svg = template && template.content.querySelector("svg");
    return svg ? new XMLSerializer().serializeToString(svg) : null;
  }

  function png(button) {
    if (made.has(button)) return made.get(button);
    var promise = new Promise(function (resolve, reject) {
      var text = svgOf(button);
      if (!text) { reject(new Error("no image")); return; }
      var img = new Image();
      img.onload = function () {
        var canvas = document.createElement("canvas");
        canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
        canvas.getContext("2d").drawImage(img, 0, 0, canvas.width, canvas.height);
        canvas.toBlob(function (blob) {
          if (blob) resolve(new File([blob], button.dataset.file, {type: "image/png"}));
          else reject(new Error("no png"));
        }, "image/png");
      };
      img.onerror = function () { reject(new Error("no svg")); };
      img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
    });
    made.set(button, promise);
    promise.catch(function () { made.delete(button); });
    return promise;
  }

  function say(button, text) {
    var status = button.parentNode.querySelector("[data-share-status]");
    if (status) status.textContent = text;
  }

  function download(button, file) {
    var a = document.createElement("a");
    a.href = URL.createObjectURL(file);
    a.download = file.name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(a.href); }, 60000);
    say(button, button.dataset.saved);
  }

  function share(button) {
    say(button, "");
    png(button).then(function (file) {
      var data = {files: [file], title: button.dataset.title, text: button.dataset.text};
      if (navigator.canShare && navigator.share && navigator.canShare({files: [file]})) {
        return navigator.share(data).catch(function (e) {
          if (e && e.name !== "AbortError") download(button, file);  // closing the sheet is fine
        });
      }
      download(button, file);
    }).catch(function () { say(button, button.dataset.failed); });
  }

  function ready() {
    document.querySelectorAll("[data-share-result]").forEach(function (button) {
      if (button.dataset.shareReady) return;
      button.dataset.shareReady = "1";
      button.parentNode.hidden = false;  // hidden until this script can make the image
      button.addEventListener("click", function () { share(button); });
      var soon = window.requestIdleCallback || function (f) { setTimeout(f, 200); };
      soon(function () { png(button).catch(function () {}); });
    });
  }
  ready();
  document.addEventListener("board:swapped", ready);  // the duel's live board (kanai_duel.js)
  document.addEventListener("htmx:afterSettle", ready);
})();
