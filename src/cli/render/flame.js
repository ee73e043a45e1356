/* hprof flame graph page: draws HPROF_DATA's call trees with positioned
 * elements whose text is set with textContent (names are never markup).
 * Hover: frame, line, value and share. Click: zoom. Search: highlight and
 * share of the matches. Reset. Inverted (callers) view. */
(function () {
  'use strict';
  var KINDS = ['Java', 'JDK', 'native', 'hprof summary', 'unwalkable', 'allocated class', 'thread',
               'GC', 'JIT', 'VM'];
  var HUES = [30, 100, 0, -1, -1, 205, 270, 55, 175, -1]; /* -1: a colour from the style sheet */
  var ROW = 16;
  var data = window.HPROF_DATA;
  var names = document.getElementById('names').textContent.split('\n');
  var unit = document.getElementById('unit').textContent;
  if (unit === 'count') unit = document.getElementById('value').textContent;
  var chart = document.getElementById('chart');
  var tip = document.getElementById('tip');
  var search = document.getElementById('search');
  var status = document.getElementById('status');
  var trees = [build(data.trees[0]), build(data.trees[1])];
  var view = 0, zoomed = null, term = '';

  /* Flat preorder "name,kind,line,value,children[,base]" into nodes with x offsets. */
  function build(flat) {
    var stride = data.diff ? 6 : 5, nodes = [], open = [], maxDepth = 0;
    for (var i = 0; i + stride <= flat.length; i += stride) {
      var n = { name: names[flat[i]], kind: flat[i + 1], line: flat[i + 2], v: flat[i + 3],
                left: flat[i + 4], base: data.diff ? flat[i + 5] : 0, kids: [], parent: null,
                depth: 0, x: 0, i: nodes.length };
      while (open.length && open[open.length - 1].left === 0) open.pop();
      if (open.length) {
        var p = open[open.length - 1];
        p.left--;
        p.kids.push(n);
        n.parent = p;
        n.depth = p.depth + 1;
        maxDepth = Math.max(maxDepth, n.depth);
      }
      nodes.push(n);
      if (n.left > 0) open.push(n);
    }
    nodes.forEach(function (n) {
      n.kids.sort(function (a, b) { return a.name < b.name ? -1 : a.name > b.name ? 1 : 0; });
      var x = n.x;
      n.kids.forEach(function (k) { k.x = x; x += k.v; });
    });
    return { nodes: nodes, root: nodes[0], maxDepth: maxDepth };
  }

  function pct(v, total) { return total ? (100 * v / total).toFixed(2) + '%' : '0%'; }

  function diffColour(n, t) {
    var a = t.root.base ? n.base / t.root.base : 0, b = t.root.v ? n.v / t.root.v : 0;
    var d = Math.max(-1, Math.min(1, (b - a) * 5));
    var light = 96 - Math.round(Math.abs(d) * 40);
    return 'hsl(' + (d >= 0 ? 0 : 220) + ', 80%, ' + light + '%)';
  }

  /* The kind's hue, varied a little by name so that neighbours differ. */
  function kindColour(n) {
    var h = 0;
    for (var i = 0; i < n.name.length; i++) h = (h * 31 + n.name.charCodeAt(i)) % 997;
    return 'hsl(' + (HUES[n.kind] + h % 16 - 8) + ', 80%, ' + (58 + h % 10) + '%)';
  }

  function matches(n) { return term !== '' && n.name.indexOf(term) >= 0; }

  function draw() {
    var t = trees[view], z = zoomed || t.root, width = chart.clientWidth || 1000;
    var scale = width / (z.v || 1), onPath = {};
    for (var a = z; a; a = a.parent) onPath[a.i] = true;
    chart.textContent = '';
    chart.style.height = (t.maxDepth + 1) * ROW + 'px';
    var frag = document.createDocumentFragment();
    t.nodes.forEach(function (n) {
      var inside = n.depth >= z.depth && n.x >= z.x && n.x + n.v <= z.x + z.v;
      if (!inside && !onPath[n.i]) return;
      var left = inside ? (n.x - z.x) * scale : 0, w = inside ? n.v * scale : width;
      if (w < 0.5) return;
      var el = document.createElement('div');
      el.className = 'f k' + n.kind + (matches(n) ? ' m' : '') + (n === z ? ' z' : '');
      el.style.left = left + 'px';
      el.style.width = w + 'px';
      el.style.top = (view ? n.depth : t.maxDepth - n.depth) * ROW + 'px';
      if (data.diff) el.style.background = diffColour(n, t);
      else if (HUES[n.kind] >= 0) el.style.background = kindColour(n);
      el.dataset.i = n.i;
      if (w > 24) el.textContent = n.name;
      frag.appendChild(el);
    });
    chart.appendChild(frag);
  }

  function describe(n) {
    var t = trees[view], line = n.line > 0 ? 'line ' + n.line : n.line < 0 ? 'several lines' : 'no line';
    var s = n.name + ' (' + KINDS[n.kind] + ', ' + line + ')\n' + n.v + ' ' + unit + ', ' +
            pct(n.v, t.root.v) + ' of all';
    if (data.diff) s += '\nbefore: ' + n.base + ' ' + unit + ', ' + pct(n.base, t.root.base) + ' of all';
    return s;
  }

  /* Share of the frames matching the search, each stack counted once. */
  function searchShare() {
    var t = trees[view], sum = 0, count = 0;
    t.nodes.forEach(function (n) {
      if (!matches(n)) return;
      count++;
      for (var a = n.parent; a; a = a.parent) if (matches(a)) return;
      sum += n.v;
    });
    status.textContent = term === '' ? '' :
      'matched ' + count + ' frames: ' + sum + ' ' + unit + ', ' + pct(sum, t.root.v) + ' of all';
  }

  function nodeAt(ev) {
    var i = ev.target && ev.target.dataset ? ev.target.dataset.i : undefined;
    return i === undefined ? null : trees[view].nodes[+i];
  }

  chart.addEventListener('mousemove', function (ev) {
    var n = nodeAt(ev);
    tip.hidden = !n;
    if (!n) return;
    tip.textContent = describe(n);
    tip.style.whiteSpace = 'pre-wrap';
    tip.style.left = Math.min(ev.clientX + 12, window.innerWidth - 300) + 'px';
    tip.style.top = ev.clientY + 14 + 'px';
  });
  chart.addEventListener('mouseleave', function () { tip.hidden = true; });
  chart.addEventListener('click', function (ev) {
    var n = nodeAt(ev);
    if (n) { zoomed = n; draw(); }
  });
  search.addEventListener('input', function () { term = search.value; searchShare(); draw(); });
  document.getElementById('reset').addEventListener('click', function () {
    zoomed = null;
    term = search.value = '';
    searchShare();
    draw();
  });
  document.getElementById('invert').addEventListener('click', function (ev) {
    view = 1 - view;
    zoomed = null;
    ev.target.textContent = view ? 'normal' : 'inverted';
    searchShare();
    draw();
  });
  window.addEventListener('resize', draw);
  draw();
})();
