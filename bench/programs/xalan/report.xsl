<?xml version="1.0" encoding="UTF-8"?>
<!-- Per-region report: orders grouped by customer (Muenchian grouping), sorted by total. -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="html" indent="yes"/>
  <xsl:key name="by-customer" match="order" use="@customer"/>
  <xsl:template match="/orders">
    <html><body>
      <xsl:for-each select="order[generate-id() = generate-id(key('by-customer', @customer)[1])]">
        <xsl:sort select="sum(key('by-customer', @customer)/item/@qty)" data-type="number" order="descending"/>
        <xsl:variable name="mine" select="key('by-customer', @customer)"/>
        <h2><xsl:value-of select="@customer"/></h2>
        <p>orders: <xsl:value-of select="count($mine)"/>,
           items: <xsl:value-of select="sum($mine/item/@qty)"/>,
           regions: <xsl:value-of select="count($mine[@region = 'north'])"/> north</p>
        <table>
          <xsl:for-each select="$mine">
            <xsl:sort select="@id" data-type="number"/>
            <tr><td><xsl:value-of select="@id"/></td>
                <td><xsl:value-of select="translate(note, 'abc', 'ABC')"/></td>
                <td><xsl:value-of select="format-number(sum(item/@price), '#,##0.00')"/></td></tr>
          </xsl:for-each>
        </table>
      </xsl:for-each>
    </body></html>
  </xsl:template>
</xsl:stylesheet>
