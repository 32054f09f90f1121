// Table Companion: the servo mount. Two towers on a foot plate hold the servo by its tabs so that
// its horn sits in the disc's pocket, right under the lid's windows. Screw the foot to the box's
// floor with the servo's shaft under the disc's centre (disc_centre in params.scad; the echo
// "servo_mount" says where). Printed upright, no supports. Printing notes: enclosures/README.md.
include <params.scad>

s = servo(servo_model);
body = [s[0], s[1], s[2]];
tab_length = s[3];
tab_thickness = s[4];
tab_z = s[5];            // the tabs' underside above the servo's bottom
shaft_offset = s[6];     // the shaft's distance from the body's centre, along the length
horn_top = s[7];         // the horn's top above the servo's bottom
screw_spacing = s[8];

floor_top = wall;
// the horn's top sits horn_pocket deep in the disc's underside
horn_top_z = disc_bottom + horn_pocket;
servo_bottom_z = horn_top_z - horn_top;
tower_top_z = servo_bottom_z + tab_z;       // the tabs rest on the towers
height = tower_top_z - floor_top;           // the mount's own height
foot = [tab_length + 16, body[1] + 12, 3];
tower = [(tab_length - body[0]) / 2 + 2, body[1] + 4];
clearance = 0.4;

module mount() {
    // origin: the servo's shaft axis on the floor; the body's centre is shaft_offset towards -x
    translate([-shaft_offset, 0, 0]) {
        difference() {
            translate([-foot[0] / 2, -foot[1] / 2, 0]) cube(foot);
            // the foot's screws (M3) into the floor
            for (x = [-foot[0] / 2 + 4, foot[0] / 2 - 4], y = [-foot[1] / 2 + 3.5, foot[1] / 2 - 3.5])
                translate([x, y, -1]) cylinder(d = 3.2, h = foot[2] + 2);
        }
        for (side = [-1, 1]) difference() {
            translate([side > 0 ? body[0] / 2 + clearance : -body[0] / 2 - clearance - tower[0],
                       -tower[1] / 2, 0])
                cube([tower[0], tower[1], height]);
            // the tab screw's pilot hole (M2 self-tapping)
            translate([side * screw_spacing / 2, 0, height - 8]) cylinder(d = 1.8, h = 9);
        }
    }
}

assert(servo_bottom_z >= floor_top + foot[2] + 1, "the servo hits the floor: a deeper box or a thinner disc");
assert(abs(shaft_offset) + body[0] / 2 <= inner_length / 2, "the servo does not fit");
echo("servo_mount", shaft_at = disc_centre, horn_top_z = horn_top_z, disc_bottom = disc_bottom,
     height = height, servo_bottom_z = servo_bottom_z);

mount();
