"""The iframes and links of some HTML, as a browser reads them: what interop_lab's notebook displays is checked
through this, by python/tests/test_notebook.py (the HTML alone) and tests/web/test_notebook.py (a real notebook's
cells)."""

import html.parser


class Elements(html.parser.HTMLParser):
    """The attributes of each iframe and link of some HTML, their values unescaped as a browser reads them."""

    def __init__(self, text):
        super().__init__()
        self.iframes, self.links = [], []
        self.feed(text)

    def handle_starttag(self, tag, attributes):
        if tag == "iframe":
            self.iframes.append(dict(attributes))
        elif tag == "a":
            self.links.append(dict(attributes))
