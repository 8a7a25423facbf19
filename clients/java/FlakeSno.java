import java.sql.SQLException;
import java.util.Arrays;
import org.postgresql.util.PGBinaryObject;
import org.postgresql.util.PGobject;

/**
 * A sno for pgjdbc: registered with {@code addDataType("sno", FlakeSno.class)}
 * it arrives and leaves in text or binary alike, and {@code getString} is
 * its canonical text either way.
 *
 * <p>sno's text is its 80 bits in 16 characters of 5 bits, most significant
 * first, over an alphabet in ASCII order (docs/sql-reference.md: "sno"); binary is the 10
 * bytes.
 */
public class FlakeSno extends PGobject implements PGBinaryObject, Comparable<FlakeSno> {
    private static final long serialVersionUID = 1L;
    private static final String SNO32 = "23456789abcdefghijklmnopqrstuvwx";
    public static final int LENGTH = 10;

    private byte[] bytes;
    private boolean cameInBinary;

    public FlakeSno() {
        setType("sno");
    }

    public static FlakeSno of(String text) throws SQLException {
        FlakeSno sno = new FlakeSno();
        sno.setValue(text);
        return sno;
    }

    public static FlakeSno ofBytes(byte[] bytes) throws SQLException {
        FlakeSno sno = new FlakeSno();
        sno.setBytes(bytes, 0, bytes.length);
        return sno;
    }

    /** Text: what pgjdbc hands over for a text-format column or getObject of a string. */
    @Override
    public void setValue(String text) throws SQLException {
        if (text == null) {
            throw invalid("null");
        }
        if (text.length() != 16) {
            throw invalid(text);
        }
        long high = 0; // the top 40 bits: characters 0-7
        long low = 0; // the bottom 40 bits: characters 8-15
        for (int i = 0; i < 16; i++) {
            int digit = SNO32.indexOf(text.charAt(i));
            if (digit < 0) {
                throw invalid(text);
            }
            if (i < 8) {
                high = high << 5 | digit;
            } else {
                low = low << 5 | digit;
            }
        }
        byte[] b = new byte[LENGTH];
        for (int i = 0; i < 5; i++) {
            b[4 - i] = (byte) (high >>> (8 * i));
            b[9 - i] = (byte) (low >>> (8 * i));
        }
        this.bytes = b;
        this.value = text;
        this.cameInBinary = false;
    }

    /** Binary: what pgjdbc hands over when the column came in binary format. */
    @Override
    public void setByteValue(byte[] source, int offset) throws SQLException {
        setBytes(source, offset, source.length - offset);
        this.cameInBinary = true;
    }

    private void setBytes(byte[] source, int offset, int length) throws SQLException {
        if (length != LENGTH) {
            throw new SQLException("invalid binary sno: expected exactly 10 bytes, got " + length, "22P03");
        }
        byte[] b = Arrays.copyOfRange(source, offset, offset + LENGTH);
        long high = 0;
        long low = 0;
        for (int i = 0; i < 5; i++) {
            high = high << 8 | (b[i] & 0xff);
            low = low << 8 | (b[5 + i] & 0xff);
        }
        char[] text = new char[16];
        for (int i = 7; i >= 0; i--) {
            text[i] = SNO32.charAt((int) (high & 31));
            text[8 + i] = SNO32.charAt((int) (low & 31));
            high >>>= 5;
            low >>>= 5;
        }
        this.bytes = b;
        this.value = new String(text);
    }

    @Override
    public int lengthInBytes() {
        return LENGTH;
    }

    @Override
    public void toBytes(byte[] target, int offset) {
        System.arraycopy(bytes, 0, target, offset, LENGTH);
    }

    public byte[] bytes() {
        return bytes.clone();
    }

    /** Whether pgjdbc delivered this value in binary format (for the recipe's checks). */
    public boolean cameInBinary() {
        return cameInBinary;
    }

    /** Start of the ID's 4 ms unit: 39 bits of 4 ms units since 2010-01-01 above the tick-tock bit. */
    public java.time.Instant time() {
        long head = 0;
        for (int i = 0; i < 5; i++) {
            head = head << 8 | (bytes[i] & 0xff);
        }
        return java.time.Instant.parse("2010-01-01T00:00:00Z").plusMillis((head >>> 1) * 4);
    }

    @Override
    public int compareTo(FlakeSno other) {
        return Arrays.compareUnsigned(bytes, other.bytes);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FlakeSno && Arrays.equals(bytes, ((FlakeSno) other).bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public FlakeSno clone() throws CloneNotSupportedException {
        FlakeSno copy = (FlakeSno) super.clone();
        copy.bytes = bytes == null ? null : bytes.clone();
        return copy;
    }

    /** The server's SQLSTATE for the same mistake: invalid_text_representation. */
    private static SQLException invalid(String text) {
        return new SQLException("invalid input syntax for type sno: \"" + text
            + "\": expected 16 characters from 2-9 and a-x", "22P02");
    }
}
